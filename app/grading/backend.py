"""Choosing and starting the grading back end for this process."""

from __future__ import annotations

import logging
from typing import Protocol

from app.config import Settings
from app.db import Database
from app.grading.dispatch import EmbeddedGrading, Notifier

log = logging.getLogger(__name__)


class GradingBackend(Protocol):
    notifier: Notifier

    async def submitted(self, submission_id: int) -> None:
        """Called once the row is committed: start grading it."""

    async def ready(self) -> bool: ...

    async def workers(self) -> dict[str, int]: ...

    async def shared_queue_depth(self) -> dict[str, int] | None:
        """Jobs waiting per device in a queue every process sees (Redis); None where each
        process publishes its own (the embedded queue: app.metrics.MeasuredQueue)."""

    async def stop(self) -> None: ...


async def start_grading(settings: Settings, database: Database) -> GradingBackend | None:
    if not settings.grading_enabled:
        log.warning("grading is disabled (GRADING_ENABLED=false): submissions stay queued")
        return None
    if settings.redis_url:
        from app.grading.distributed import DistributedGrading

        distributed = DistributedGrading(database=database, settings=settings)
        await distributed.start()
        return distributed
    from grader import Grader, GraderConfig

    config = GraderConfig(
        workers=settings.grader_workers,
        unsafe_dev_mode=settings.grader_unsafe_dev_mode,
        cgroups=settings.effective_grader_cgroups,
        hidden_paths=[str(settings.data_dir.resolve())],
    )
    embedded = EmbeddedGrading(
        database=database,
        grader=Grader(config),
        concurrency=settings.grading_concurrency,
        in_flight_per_student=settings.grading_in_flight_per_student,
    )
    await embedded.start()
    return embedded
