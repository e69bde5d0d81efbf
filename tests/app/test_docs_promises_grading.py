"""docs/self-hosting.md on distributed grading: "After `MAX_DELIVERIES` (3) tries that a
worker started, the submission ends in `error` with the reason; with no CPU worker for
`NO_WORKER_GRACE_S` (60 s) it ends saying so." Driven as the reaper drives it, on a real
Redis with no grader worker."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from datetime import timedelta
from pathlib import Path

import pytest

from app.auth.service import create_user
from app.db import Database
from app.grading.distributed import NO_CPU_WORKER, DistributedGrading
from app.lessons.catalog import live_exercise
from app.models import Submission, SubmissionMode, SubmissionStatus, utcnow
from app.submissions import service
from tests.conftest import test_settings
from tests.helpers import unique_name
from tests.processes import PrivateRedis

pytestmark = pytest.mark.distributed

EXERCISE = "gpu-support-device-independent"


@pytest.fixture
async def grading_for(
    tmp_path: Path, db: Database, redis_server: PrivateRedis
) -> AsyncIterator[Callable[..., DistributedGrading]]:
    """Makes DistributedGrading on this Redis; each is stopped at the end."""
    made: list[DistributedGrading] = []

    def make(**overrides: object) -> DistributedGrading:
        settings = test_settings(tmp_path, redis_url=redis_server.url, **overrides)
        made.append(DistributedGrading(database=db, settings=settings))
        return made[-1]

    yield make
    for grading in made:
        await grading.stop()


async def _handed_out(db: Database, *, status: SubmissionStatus, attempts: int) -> int:
    """A run submission handed to the graders whose lease has run out."""
    async with db.writer() as session, session.begin():
        user = await create_user(session=session, username=unique_name(), password="x" * 10)
        exercise = await live_exercise(session=session, exercise_id=EXERCISE)
        assert exercise is not None
        submission = await service.create_submission(
            session=session,
            user_id=user.id,
            exercise=exercise,
            code="print('hi')\n",
            mode=SubmissionMode.RUN,
        )
        submission.status = status
        submission.attempts = attempts
        submission.dispatched_at = utcnow() - timedelta(minutes=10)
        submission.lease_expires_at = utcnow() - timedelta(seconds=1)
        return submission.id


async def _state(db: Database, ident: int) -> tuple[SubmissionStatus, int, str | None]:
    async with db.sessionmaker() as session:
        row = await session.get_one(Submission, ident)
        return row.status, row.attempts, row.detail


async def test_a_job_ends_in_error_after_max_deliveries_started_tries(
    db: Database, grading_for: Callable[..., DistributedGrading]
) -> None:
    grading = grading_for()
    limit = grading.settings.max_deliveries
    assert limit == 3
    last_try = await _handed_out(db, status=SubmissionStatus.RUNNING, attempts=limit - 1)
    one_too_many = await _handed_out(db, status=SubmissionStatus.RUNNING, attempts=limit)
    for ident in (last_try, one_too_many):
        await grading._resend_expired(ident)  # what the reaper does with each expired job
    assert (await _state(db, last_try))[:2] == (SubmissionStatus.QUEUED, limit)
    status, _, detail = await _state(db, one_too_many)
    assert status == SubmissionStatus.ERROR
    assert detail == f"Grading did not finish after {limit} tries."


async def test_with_no_cpu_worker_past_the_grace_a_job_ends_saying_so(
    db: Database, grading_for: Callable[..., DistributedGrading]
) -> None:
    patient = grading_for()
    assert patient.settings.no_worker_grace_s == 60
    waits = await _handed_out(db, status=SubmissionStatus.QUEUED, attempts=1)
    await patient._resend_expired(waits)
    status, _, detail = await _state(db, waits)
    assert status == SubmissionStatus.QUEUED
    assert detail is not None and "none is running right now" in detail

    gives_up = await _handed_out(db, status=SubmissionStatus.QUEUED, attempts=1)
    await grading_for(no_worker_grace_s=0)._resend_expired(gives_up)
    status, _, detail = await _state(db, gives_up)
    assert (status, detail) == (SubmissionStatus.ERROR, NO_CPU_WORKER)
