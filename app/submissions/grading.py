"""Choosing and starting the grading back end for this process."""

from __future__ import annotations

import logging

from app.config import Settings
from app.db import Database
from app.submissions.dispatch import EmbeddedGrading

log = logging.getLogger(__name__)


async def start_embedded_grading(settings: Settings, database: Database) -> EmbeddedGrading | None:
    if not settings.grading_enabled:
        log.warning("grading is disabled (GRADING_ENABLED=false): submissions stay queued")
        return None
    from grader import Grader, GraderConfig

    grader = Grader(
        GraderConfig(
            workers=settings.grader_workers, unsafe_dev_mode=settings.grader_unsafe_dev_mode
        )
    )
    grading = EmbeddedGrading(
        database=database,
        grader=grader,
        workers=settings.grader_workers,
        limit=settings.grader_queue_limit,
    )
    await grading.start()
    return grading
