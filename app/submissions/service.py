"""Submissions: created queued, graded elsewhere, recorded here exactly once. Never commits."""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Literal

from sqlalchemy import ColumnElement, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Exercise, Submission, SubmissionRun, utcnow

MAX_ATTEMPTS = 2  # a platform fault is retried once, then reported as `error`


async def create_submission(
    *, session: AsyncSession, user_id: int, exercise: Exercise, code: str, mode: str = "grade"
) -> Submission:
    devices = ["cpu"] if mode == "run" else list(exercise.devices)
    submission = Submission(
        user_id=user_id, exercise_id=exercise.id, code=code, mode=mode, devices=devices
    )
    session.add(submission)
    await session.flush()
    return submission


async def get_own_submission(
    *, session: AsyncSession, user_id: int, submission_id: int
) -> Submission | None:
    return await session.scalar(
        select(Submission).where(Submission.id == submission_id, Submission.user_id == user_id)
    )


async def list_own_submissions(
    *, session: AsyncSession, user_id: int, exercise_id: str, limit: int = 100
) -> list[Submission]:
    rows = await session.scalars(
        select(Submission)
        .where(Submission.user_id == user_id, Submission.exercise_id == exercise_id)
        .order_by(Submission.created_at.desc(), Submission.id.desc())
        .limit(limit)
    )
    return list(rows.all())


async def queue_positions(*, session: AsyncSession, submission_ids: list[int]) -> dict[int, int]:
    """1-based place in line of each queued submission among all queued ones."""
    if not submission_ids:
        return {}
    queued = (
        await session.scalars(
            select(Submission.id).where(Submission.status == "queued").order_by(Submission.id)
        )
    ).all()
    order = {ident: index + 1 for index, ident in enumerate(queued)}
    return {ident: order[ident] for ident in submission_ids if ident in order}


async def claim(*, session: AsyncSession, submission_id: int, lease_s: float) -> Submission | None:
    """Mark a queued submission running under a lease; None if someone else has it."""
    now = utcnow()
    claimed = await session.execute(
        update(Submission)
        .where(
            Submission.id == submission_id,
            (Submission.status == "queued")
            | ((Submission.status == "running") & (Submission.lease_expires_at < now)),
        )
        .values(
            status="running",
            attempts=Submission.attempts + 1,
            started_at=now,
            lease_expires_at=now + timedelta(seconds=lease_s),
        )
    )
    if getattr(claimed, "rowcount", 0) != 1:
        return None
    submission = await session.get(Submission, submission_id, populate_existing=True)
    return submission


async def record_runs(
    *, session: AsyncSession, submission_id: int, runs: list[dict[str, Any]]
) -> Literal["recorded", "retry", "duplicate"]:
    """Store finished device runs; once every device has one, finish the submission.

    Idempotent: a run for a device that already has one, or for a finished submission, is
    dropped. A platform fault (`error` run) on an early attempt asks the caller to retry."""
    submission = await session.get(Submission, submission_id, populate_existing=True)
    if submission is None or submission.status in ("done", "error"):
        return "duplicate"
    if any(run["verdict"] == "error" for run in runs) and submission.attempts < MAX_ATTEMPTS:
        submission.detail = next(r.get("detail") for r in runs if r["verdict"] == "error")
        submission.status = "queued"
        submission.lease_expires_at = None
        await session.flush()
        return "retry"
    inserted = False
    for run in runs:
        try:
            async with session.begin_nested():
                session.add(
                    SubmissionRun(submission_id=submission_id, device=run["device"], run=run)
                )
            inserted = True
        except IntegrityError:
            continue
    await _finish_if_complete(session=session, submission=submission)
    return "recorded" if inserted else "duplicate"


async def _finish_if_complete(*, session: AsyncSession, submission: Submission) -> None:
    stored = {
        row.device: row.run
        for row in await session.scalars(
            select(SubmissionRun).where(SubmissionRun.submission_id == submission.id)
        )
    }
    if not set(submission.devices) <= set(stored):
        return
    runs = [stored[device] for device in submission.devices]
    from app.submissions.jobs import summarize

    outcome = summarize(str(submission.id), runs)
    await session.execute(
        update(Submission)
        .where(Submission.id == submission.id, Submission.status.in_(("queued", "running")))
        .values(
            status=outcome["status"],
            verdict=outcome["verdict"],
            detail=outcome["detail"],
            runs=runs,
            finished_at=utcnow(),
            lease_expires_at=None,
        )
        .execution_options(synchronize_session="fetch")
    )


async def unfinished_ids(*, session: AsyncSession) -> list[int]:
    """Submissions a previous process accepted but never finished: they are graded again."""
    rows = await session.scalars(
        select(Submission.id)
        .where(Submission.status.in_(("queued", "running")))
        .order_by(Submission.id)
    )
    return list(rows.all())


async def count_queued(*, session: AsyncSession) -> int:
    return int(await session.scalar(select(func.count()).where(Submission.status == "queued")) or 0)


async def fail(*, session: AsyncSession, submission_id: int, detail: str) -> bool:
    """End an unfinished submission as a platform error (never counted against the student)."""
    ended = await session.execute(
        update(Submission)
        .where(Submission.id == submission_id, Submission.status.in_(("queued", "running")))
        .values(
            status="error", verdict=None, detail=detail, finished_at=utcnow(), lease_expires_at=None
        )
    )
    return getattr(ended, "rowcount", 0) == 1


async def recorded_devices(*, session: AsyncSession, submission_id: int) -> set[str]:
    rows = await session.scalars(
        select(SubmissionRun.device).where(SubmissionRun.submission_id == submission_id)
    )
    return set(rows.all())


async def submitted_recently(*, session: AsyncSession, user_id: int, seconds: int) -> int:
    since = utcnow() - timedelta(seconds=seconds)
    return int(
        await session.scalar(
            select(func.count()).where(
                Submission.user_id == user_id, Submission.created_at >= since
            )
        )
        or 0
    )


async def mark_started(*, session: AsyncSession, submission_id: int, lease_s: float) -> bool:
    now = utcnow()
    started = await session.execute(
        update(Submission)
        .where(Submission.id == submission_id, Submission.status.in_(("queued", "running")))
        .values(
            status="running",
            started_at=func.coalesce(Submission.started_at, now),
            lease_expires_at=now + timedelta(seconds=lease_s),
        )
    )
    return getattr(started, "rowcount", 0) == 1


async def expired(*, session: AsyncSession, limit: int = 100) -> list[int]:
    """Unfinished submissions whose lease ran out (or that never got one)."""
    now = utcnow()
    rows = await session.scalars(
        select(Submission.id)
        .where(
            Submission.status.in_(("queued", "running")),
            (Submission.lease_expires_at < now)
            | (
                Submission.lease_expires_at.is_(None)
                & (Submission.created_at < now - timedelta(seconds=5))
            ),
        )
        .order_by(Submission.id)
        .limit(limit)
    )
    return list(rows.all())


async def take_for_delivery(
    *, session: AsyncSession, submission_id: int, lease_s: float, only_if_expired: bool
) -> Submission | None:
    """Count one more delivery and lease the row; with only_if_expired, a row someone else
    re-leased meanwhile is left alone (several web processes may reap at once)."""
    now = utcnow()
    condition: ColumnElement[bool] = Submission.status.in_(("queued", "running"))
    if only_if_expired:
        condition &= (Submission.lease_expires_at < now) | Submission.lease_expires_at.is_(None)
    taken = await session.execute(
        update(Submission)
        .where(Submission.id == submission_id, condition)
        .values(
            status="queued",
            attempts=Submission.attempts + 1,
            lease_expires_at=now + timedelta(seconds=lease_s),
        )
    )
    if getattr(taken, "rowcount", 0) != 1:
        return None
    return await session.get(Submission, submission_id, populate_existing=True)
