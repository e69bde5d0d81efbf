"""Recording grading outcomes: idempotent, retried once on platform faults."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.auth.service import create_user
from app.db import Database
from app.grading import recording
from app.lessons.catalog import live_exercise
from app.models import Submission, SubmissionRun
from app.submissions import service

EXERCISE = "gpu-support-device-independent"


def run(device: str, verdict: str = "passed", detail: str | None = None) -> dict:
    return {
        "device": device,
        "verdict": verdict,
        "stdout": "",
        "stderr": "",
        "exit_code": 0,
        "duration_ms": 5,
        "diff": "",
        "hint": None,
        "detail": detail,
    }


async def new_submission(session: AsyncSession) -> Submission:
    user = await create_user(session=session, username="recorder", password="correct horse")
    exercise = await live_exercise(session=session, exercise_id=EXERCISE)
    assert exercise is not None
    submission = await service.create_submission(
        session=session, user_id=user.id, exercise=exercise, code="print(1)"
    )
    return submission


async def test_a_duplicate_run_changes_nothing(db: Database) -> None:
    async with db.writer() as session:
        submission = await new_submission(session)
        assert submission.devices == ["cpu", "cuda"]
        outcome = await recording.record_runs(
            session=session, submission_id=submission.id, runs=[run("cpu")]
        )
        assert outcome == "recorded"
        assert submission.status == "queued"  # cuda has not reported yet
        again = await recording.record_runs(
            session=session, submission_id=submission.id, runs=[run("cpu", "wrong_output")]
        )
        assert again == "duplicate"
        await recording.record_runs(
            session=session,
            submission_id=submission.id,
            runs=[run("cuda", "not_graded", "not graded on cuda here")],
        )
        await session.refresh(submission)
        assert (submission.status, submission.verdict) == ("done", "passed")
        late = await recording.record_runs(
            session=session, submission_id=submission.id, runs=[run("cuda", "wrong_output")]
        )
        assert late == "duplicate"
        await session.refresh(submission)
        assert submission.verdict == "passed"
        count = await session.scalar(
            select(func.count()).where(SubmissionRun.submission_id == submission.id)
        )
        assert count == 2


async def test_a_platform_fault_is_retried_once_then_reported(db: Database) -> None:
    async with db.writer() as session:
        submission = await new_submission(session)
        fault = [run("cpu", "error", "the sandbox died"), run("cuda", "not_graded")]
        await recording.claim(session=session, submission_id=submission.id, lease_s=60)
        assert (
            await recording.record_runs(session=session, submission_id=submission.id, runs=fault)
            == "retry"
        )
        await recording.claim(session=session, submission_id=submission.id, lease_s=60)
        assert (
            await recording.record_runs(session=session, submission_id=submission.id, runs=fault)
            == "recorded"
        )
        await session.refresh(submission)
        assert submission.status == "error"
        assert submission.verdict is None
        assert "the sandbox died" in (submission.detail or "")


async def test_unfinished_submissions_are_found_for_regrading(db: Database) -> None:
    async with db.writer() as session:
        submission = await new_submission(session)
        assert submission.id in await recording.unfinished_ids(session=session)
        await recording.record_runs(
            session=session, submission_id=submission.id, runs=[run("cpu"), run("cuda")]
        )
        assert submission.id not in await recording.unfinished_ids(session=session)
