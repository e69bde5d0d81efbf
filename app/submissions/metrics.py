"""Prometheus text exposition, written by hand (a handful of series needs no library)."""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import Database
from app.models import Submission, User

TOP_USERS = 10  # users named in tensorcamp_stored_bytes_user: a bounded set of series
BUCKETS_S = (0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


class LatencyHistogram:
    """Submit-to-verdict seconds of the submissions this process recorded."""

    def __init__(self) -> None:
        self.counts = [0] * (len(BUCKETS_S) + 1)
        self.total = 0.0

    def observe(self, seconds: float) -> None:
        self.counts[bisect_left(BUCKETS_S, seconds)] += 1
        self.total += seconds

    def lines(self, name: str) -> list[str]:
        out = [f"# HELP {name} Seconds from submission to verdict.", f"# TYPE {name} histogram"]
        running = 0
        for bound, count in zip(BUCKETS_S, self.counts, strict=False):
            running += count
            out.append(f'{name}_bucket{{le="{bound}"}} {running}')
        running += self.counts[-1]
        out += [
            f'{name}_bucket{{le="+Inf"}} {running}',
            f"{name}_sum {self.total:.6f}",
            f"{name}_count {running}",
        ]
        return out


LATENCY = LatencyHistogram()


async def render(database: Database, workers: dict[str, int]) -> str:
    async with database.sessionmaker() as session:
        by_verdict = (
            await session.execute(
                select(Submission.status, Submission.verdict, func.count()).group_by(
                    Submission.status, Submission.verdict
                )
            )
        ).all()
        queued_devices = (
            await session.scalars(
                select(Submission.devices).where(Submission.status.in_(("queued", "running")))
            )
        ).all()
        storage = await _storage_lines(session)
    depth: Counter[str] = Counter(d for devices in queued_devices for d in devices)
    lines = [
        "# HELP tensorcamp_submissions Submissions by status and verdict.",
        "# TYPE tensorcamp_submissions gauge",
    ]
    for status, verdict, count in by_verdict:
        lines.append(
            f'tensorcamp_submissions{{status="{status}",verdict="{verdict or "none"}"}} {count}'
        )
    lines += [
        "# HELP tensorcamp_queue_depth Unfinished submissions waiting for each device.",
        "# TYPE tensorcamp_queue_depth gauge",
    ]
    for device in sorted(set(depth) | set(workers) | {"cpu"}):
        lines.append(f'tensorcamp_queue_depth{{device="{device}"}} {depth[device]}')
    lines += [
        "# HELP tensorcamp_workers Grader workers serving each device.",
        "# TYPE tensorcamp_workers gauge",
    ]
    for device, count in sorted(workers.items()):
        lines.append(f'tensorcamp_workers{{device="{device}"}} {count}')
    lines += storage
    lines += LATENCY.lines("tensorcamp_grading_latency_seconds")
    return "\n".join(lines) + "\n"


async def _storage_lines(session: AsyncSession) -> list[str]:
    """Stored bytes from the users' running counters (never a sum over submissions)."""
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
    lines = [
        "# HELP tensorcamp_stored_bytes Bytes that submissions keep stored (code and outputs).",
        "# TYPE tensorcamp_stored_bytes gauge",
        f"tensorcamp_stored_bytes {int(total)}",
        "# HELP tensorcamp_stored_bytes_max_user The most bytes one user keeps stored.",
        "# TYPE tensorcamp_stored_bytes_max_user gauge",
        f"tensorcamp_stored_bytes_max_user {int(largest)}",
        f"# HELP tensorcamp_stored_bytes_user Bytes stored by the {TOP_USERS} largest users.",
        "# TYPE tensorcamp_stored_bytes_user gauge",
    ]
    for user_id, username, stored in top:
        lines.append(
            f'tensorcamp_stored_bytes_user{{user_id="{user_id}",username="{_label(username)}"}}'
            f" {stored}"
        )
    return lines


def _label(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
