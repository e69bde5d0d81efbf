"""What a scrape reads from shared state: stored bytes from the users' running counters,
and from the grading back end its live workers and, where all processes see one queue
(Redis), the jobs waiting per device. Never a query over the submissions table."""

from __future__ import annotations

from typing import TYPE_CHECKING

from prometheus_client.core import GaugeMetricFamily
from prometheus_client.metrics_core import Metric
from sqlalchemy import func, select

from app.db import Database
from app.models import User

if TYPE_CHECKING:
    from app.grading.backend import GradingBackend

TOP_USERS = 10  # users named in tensorcamp_stored_bytes_user: a bounded set of series


async def shared_families(database: Database, grading: GradingBackend | None) -> list[Metric]:
    families = await _stored_bytes(database)
    if grading is not None:
        workers = GaugeMetricFamily(
            "tensorcamp_workers", "Grader workers serving each device.", labels=["device"]
        )
        for device, count in sorted((await grading.workers()).items()):
            workers.add_metric([device], count)
        families.append(workers)
        shared_depth = await grading.shared_queue_depth()
        if shared_depth is not None:
            depth = GaugeMetricFamily(
                "tensorcamp_queue_depth",
                "Jobs waiting for a grader, per device.",
                labels=["device"],
            )
            for device, count in sorted(shared_depth.items()):
                depth.add_metric([device], count)
            families.append(depth)
    return families


async def _stored_bytes(database: Database) -> list[Metric]:
    """Bytes stored, from the users' running counters (never a sum over submissions)."""
    async with database.sessionmaker() as session:
        total, largest = (
            await session.execute(
                select(
                    func.coalesce(func.sum(User.stored_bytes), 0),
                    func.coalesce(func.max(User.stored_bytes), 0),
                )
            )
        ).one()
        top = (
            await session.execute(
                select(User.id, User.username, User.stored_bytes)
                .where(User.stored_bytes > 0)
                .order_by(User.stored_bytes.desc(), User.id)
                .limit(TOP_USERS)
            )
        ).all()
    per_user = GaugeMetricFamily(
        "tensorcamp_stored_bytes_user",
        f"Bytes stored by the {TOP_USERS} largest users.",
        labels=["user_id", "username"],
    )
    for user_id, username, stored in top:
        per_user.add_metric([str(user_id), username], stored)
    return [
        GaugeMetricFamily(
            "tensorcamp_stored_bytes",
            "Bytes that submissions keep stored (code and outputs).",
            value=int(total),
        ),
        GaugeMetricFamily(
            "tensorcamp_stored_bytes_max_user",
            "The most bytes one user keeps stored.",
            value=int(largest),
        ),
        per_user,
    ]
