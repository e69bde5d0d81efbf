"""Recording what the graders return: a submission's lease state machine (claimed under
a lease, its runs stored once per device, finished exactly once, failed, expired and
sent again) and what a finish sets off (storage compaction, the LMS's gradebook, the
teachers' summaries). Never commits."""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import cache
from typing import Any, Literal

from sqlalchemy import ColumnElement, Integer, bindparam, case, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.attributes import set_committed_value

from app import item_progress, metrics
from app.db import execute_core, insert_for, table_of
from app.grading import fairness
from app.lti import grades
from app.models import (
    Exercise,
    RunVerdict,
    Submission,
    SubmissionMode,
    SubmissionRun,
    SubmissionStatus,
    utcnow,
)
from app.submissions import storage

MAX_ATTEMPTS = 2  # a platform fault is retried once, then reported as `error`


async def claim(*, session: AsyncSession, submission_id: int, lease_s: float) -> Submission | None:
    """Mark a queued submission running under a lease; None if someone else has it, or if
    it still waits behind the student's own earlier submissions."""
    now = utcnow()
    # Loaded from the UPDATE ... RETURNING as a plain statement: the ORM's bulk UPDATE
    # path costs several times the statement on the way of every grading.
    lease = {"now": now, "new_lease_expires_at": now + timedelta(seconds=lease_s)}
    claimed = await session.scalars(_claim_statement(), {"submission_id": submission_id} | lease)
    return claimed.one_or_none()


@cache
def _claim_statement() -> Any:
    """claim's UPDATE, built once (it runs on every grading), loaded as the object from its
    RETURNING: the ORM's bulk UPDATE path costs several times the statement."""
    submissions = table_of(Submission)
    row = submissions.c
    now = bindparam("now", type_=row.started_at.type)
    claimed = (
        update(submissions)
        .where(
            row.id == bindparam("submission_id", type_=Integer),
            row.dispatched_at.is_not(None),
            (row.status == SubmissionStatus.QUEUED)
            | ((row.status == SubmissionStatus.RUNNING) & (row.lease_expires_at < now)),
        )
        .values(
            status=SubmissionStatus.RUNNING,
            attempts=row.attempts + 1,
            started_at=now,
            lease_expires_at=bindparam("new_lease_expires_at", type_=row.lease_expires_at.type),
        )
        .returning(*row)
    )
    return select(Submission).from_statement(claimed).execution_options(populate_existing=True)


async def record_runs(
    *, session: AsyncSession, submission_id: int, runs: list[dict[str, Any]]
) -> Literal["recorded", "retry", "duplicate"]:
    """Store finished device runs; once every device has one, finish the submission.

    Idempotent: a run for a device that already has one, or for a finished submission, is
    dropped. A platform fault (`error` run) on an early attempt asks the caller to retry.

    The row is locked first (PostgreSQL), so runs of one submission that two processes
    record at once are recorded one after the other and the second sees the first: the
    submission is finished exactly once, by whichever completes it. Locks are taken in one
    order, this submission, then its user (storage), then older finished submissions."""
    submission = await session.get(
        Submission, submission_id, populate_existing=True, with_for_update=True
    )
    if submission is None or submission.status in SubmissionStatus.FINISHED:
        return "duplicate"
    faults = [run for run in runs if run["verdict"] == RunVerdict.ERROR]
    if faults and submission.attempts < MAX_ATTEMPTS:
        submission.detail = faults[0].get("detail")
        submission.status = SubmissionStatus.QUEUED
        submission.lease_expires_at = None
        await session.flush()
        return "retry"
    if submission.mode == SubmissionMode.RUN:
        from app.grading.jobs import checked_try_out  # the grader package, on demand

        exercise = await session.get_one(Exercise, submission.exercise_id)
        runs = [checked_try_out(run, exercise) for run in runs]
    inserted: set[str] = set()
    devices = [run["device"] for run in runs]
    distinct = len(set(devices)) == len(devices)
    # Runs that complete the submission go into it whole right below (_finish_if_complete):
    # their rows in submission_runs are stored without output in the first place.
    completes = distinct and set(submission.devices) <= set(devices)
    if runs:
        now = utcnow()
        # ON CONFLICT DO NOTHING: a run another process recorded first wins, silently.
        statement = insert_for(session)(SubmissionRun).values(
            [
                {"submission_id": submission_id, "device": run["device"],
                 "run": storage.without_output(run) if completes else run, "created_at": now}
                for run in runs
            ]
        )  # fmt: skip
        statement = statement.on_conflict_do_nothing(
            index_elements=["submission_id", "device"],
            index_where=SubmissionRun.regrade_id.is_(None),  # the live runs' unique index
        )
        result = await execute_core(session, statement.returning(SubmissionRun.device))
        inserted = set(result.scalars().all())
        new_runs = [run for run in runs if run["device"] in inserted]
        await storage.add_stored_bytes(
            session=session, user_id=submission.user_id, delta=storage.runs_bytes(new_runs)
        )
        metrics.runs_recorded(
            session, submitted_at=submission.created_at, recorded_at=now, runs=new_runs
        )
    # The new runs are what is stored for their devices: no need to read them back (the
    # embedded grader reports every device at once).
    fresh = [run for run in runs if run["device"] in inserted] if distinct else []
    await _finish_if_complete(
        session=session, submission=submission, fresh=fresh, bare=inserted if completes else set()
    )
    return "recorded" if inserted else "duplicate"


async def _finish_if_complete(
    *, session: AsyncSession, submission: Submission, fresh: list[dict[str, Any]], bare: set[str]
) -> None:
    """`fresh`: the runs just recorded, whole; `bare`: the devices among them whose rows
    in submission_runs were stored without output."""
    stored = {run["device"]: run for run in fresh}
    if not set(submission.devices) <= set(stored):
        stored = {
            row.device: row.run
            for row in await session.scalars(
                select(SubmissionRun).where(SubmissionRun.submission_id == submission.id)
            )
        } | stored
    if not set(submission.devices) <= set(stored):
        return
    runs = [stored[device] for device in submission.devices]
    from app.grading.jobs import summarize

    outcome = summarize(str(submission.id), runs)
    finished_at = utcnow()
    values = {f"new_{key}": outcome[key] for key in ("status", "verdict", "detail")}
    values |= {"new_runs": runs, "new_finished_at": finished_at}
    finished = await execute_core(
        session, _finish_statement(), {"submission_id": submission.id} | values
    )
    if getattr(finished, "rowcount", 0) == 1:
        # The row is written already; the loaded object only learns the values, so the
        # commit does not write them a second time.
        for key, value in (
            ("status", outcome["status"]),
            ("verdict", outcome["verdict"]),
            ("detail", outcome["detail"]),
            ("runs", runs),
            ("finished_at", finished_at),
            ("lease_expires_at", None),
        ):
            set_committed_value(submission, key, value)
        metrics.submission_finished(
            session, mode=submission.mode, status=outcome["status"], verdict=outcome["verdict"]
        )
        await item_progress.submission_finished(session=session, submission=submission)
        copied = [run for run in runs if run["device"] not in bare]
        await storage.drop_run_copies(session=session, submission_id=submission.id, runs=copied)
        await storage.compact(
            session=session, user_id=submission.user_id, exercise_id=submission.exercise_id
        )
        if submission.mode == SubmissionMode.GRADE:  # the LMS's gradebook, if linked
            await grades.exercise_progress_changed(
                session=session, user_ids=[submission.user_id], exercise_id=submission.exercise_id
            )


@cache
def _finish_statement() -> Any:
    """The finish's UPDATE, built once: it runs on every grading."""
    submissions = table_of(Submission)
    row = submissions.c
    named = ("status", "verdict", "detail", "runs", "finished_at")
    return (
        update(submissions)
        .where(
            row.id == bindparam("submission_id", type_=Integer),
            row.status.in_(SubmissionStatus.UNFINISHED),
        )
        .values(
            # (A parameter may not be named as the column it sets.)
            {name: bindparam(f"new_{name}", type_=row[name].type) for name in named}
            | {"lease_expires_at": None}
        )
    )


async def unfinished_ids(*, session: AsyncSession) -> list[int]:
    """Submissions a previous process handed to the graders but never finished: they are
    graded again. (Those still waiting their turn are released by fairness.release_next.)"""
    rows = await session.scalars(
        select(Submission.id)
        .where(fairness.in_flight())
        .order_by(Submission.dispatched_at, Submission.id)
    )
    return list(rows.all())


async def fail(*, session: AsyncSession, submission_id: int, detail: str) -> bool:
    """End an unfinished submission as a platform error (never counted against the student)."""
    mode = await session.scalar(
        update(Submission)
        .where(Submission.id == submission_id, Submission.status.in_(SubmissionStatus.UNFINISHED))
        .values(
            status=SubmissionStatus.ERROR,
            verdict=None,
            detail=detail,
            finished_at=utcnow(),
            lease_expires_at=None,
        )
        .returning(Submission.mode)
    )
    if mode is None:
        return False
    metrics.submission_finished(session, mode=mode, status=SubmissionStatus.ERROR, verdict=None)
    return True


async def recorded_devices(*, session: AsyncSession, submission_id: int) -> set[str]:
    rows = await session.scalars(
        select(SubmissionRun.device).where(SubmissionRun.submission_id == submission_id)
    )
    return set(rows.all())


async def mark_started(*, session: AsyncSession, submission_id: int, lease_s: float) -> bool:
    now = utcnow()
    started = await session.execute(
        update(Submission)
        .where(Submission.id == submission_id, Submission.status.in_(SubmissionStatus.UNFINISHED))
        .values(
            status=SubmissionStatus.RUNNING,
            started_at=func.coalesce(Submission.started_at, now),
            lease_expires_at=now + timedelta(seconds=lease_s),
        )
    )
    return getattr(started, "rowcount", 0) == 1


async def expired(*, session: AsyncSession, limit: int = 100) -> list[int]:
    """Submissions handed to the graders whose lease ran out (or that never got one: the
    process that released them died before sending). Waiting ones are not theirs yet."""
    now = utcnow()
    rows = await session.scalars(
        select(Submission.id)
        .where(
            fairness.in_flight(),
            (Submission.lease_expires_at < now)
            | (
                Submission.lease_expires_at.is_(None)
                & (Submission.dispatched_at < now - timedelta(seconds=5))
            ),
        )
        .order_by(Submission.id)
        .limit(limit)
    )
    return list(rows.all())


def _lease_ran_out(now: datetime) -> ColumnElement[bool]:
    return (Submission.lease_expires_at < now) | Submission.lease_expires_at.is_(None)


async def take_for_delivery(
    *, session: AsyncSession, submission_id: int, lease_s: float, only_if_expired: bool
) -> Submission | None:
    """Lease the row for one more delivery; with only_if_expired, a row someone else
    re-leased meanwhile is left alone (several web processes may reap at once).

    `attempts` counts tries that could have failed: the first delivery, a retry after a
    platform fault, and a re-send of a job a worker started and then went silent on. A job
    sent again because the queue lost it (Redis restarted) was never tried, so it does not
    count; otherwise a long queue during a Redis restart would use up every try."""
    now = utcnow()
    condition: ColumnElement[bool] = fairness.in_flight()
    increment: Any = 1
    if only_if_expired:
        condition &= _lease_ran_out(now)
        increment = case(
            ((Submission.status == SubmissionStatus.RUNNING) | (Submission.attempts == 0), 1),
            else_=0,
        )
    taken = await session.scalars(
        update(Submission)
        .where(Submission.id == submission_id, condition)
        .values(
            status=SubmissionStatus.QUEUED,
            attempts=Submission.attempts + increment,
            lease_expires_at=now + timedelta(seconds=lease_s),
        )
        .returning(Submission),
        execution_options={"populate_existing": True},
    )
    return taken.one_or_none()


async def extend_queued_lease(*, session: AsyncSession, submission_id: int, lease_s: float) -> bool:
    """Give a job that still waits in the queue more time, without sending it again."""
    now = utcnow()
    extended = await session.execute(
        update(Submission)
        .where(
            Submission.id == submission_id,
            Submission.status == SubmissionStatus.QUEUED,
            _lease_ran_out(now),
        )
        .values(lease_expires_at=now + timedelta(seconds=lease_s))
    )
    return getattr(extended, "rowcount", 0) == 1
