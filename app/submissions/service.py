"""Submissions: created queued, graded elsewhere, recorded here exactly once. Never commits."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Literal, NamedTuple, cast

from sqlalchemy import ColumnElement, Table, case, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.attributes import set_committed_value

from app import item_progress, metrics
from app.db import execute_core, insert_for
from app.grading import fairness
from app.lessons.catalog import is_live
from app.lti import grades
from app.models import (
    Exercise,
    RevealReason,
    RunVerdict,
    SolutionReveal,
    Submission,
    SubmissionMode,
    SubmissionRun,
    SubmissionStatus,
    Verdict,
    utcnow,
)
from app.submissions import storage

# The table itself, for statements that skip the ORM's bulk-DML path (see claim).
SUBMISSIONS = cast(Table, Submission.__table__)
MAX_ATTEMPTS = 2  # a platform fault is retried once, then reported as `error`


async def create_submission(
    *,
    session: AsyncSession,
    user_id: int,
    exercise: Exercise | Gradable,
    code: str,
    mode: SubmissionMode = SubmissionMode.GRADE,
    in_flight_limit: int = 1,
) -> Submission:
    """Stored `queued`; handed to the graders at once (`dispatched_at`) only if the student
    has fewer than `in_flight_limit` unfinished submissions, else it waits its turn
    (app/grading/fairness.py). Call it after `fairness.lock_student` in the same
    transaction, as the router does before counting what admission depends on: the count
    of unfinished submissions inside the INSERT is only right then."""
    devices = ["cpu"] if mode == SubmissionMode.RUN else list(exercise.devices)
    now = utcnow()
    inserted = (
        insert(SUBMISSIONS)
        .values(
            user_id=user_id,
            exercise_id=exercise.id,
            code=code,
            mode=mode,
            devices=devices,
            created_at=now,
            dispatched_at=fairness.dispatched_if_room(
                user_id=user_id, limit=in_flight_limit, now=now
            ),
        )
        .returning(*SUBMISSIONS.c)
    )
    # A plain INSERT ... RETURNING loaded as the object: not the ORM's bulk INSERT path.
    submission = (await session.scalars(select(Submission).from_statement(inserted))).one()
    await storage.add_stored_bytes(session=session, user_id=user_id, delta=storage.utf8_len(code))
    return submission


async def get_own_submission(
    *, session: AsyncSession, user_id: int, submission_id: int
) -> Submission | None:
    return await session.scalar(
        select(Submission).where(Submission.id == submission_id, Submission.user_id == user_id)
    )


async def list_own_submissions(
    *,
    session: AsyncSession,
    user_id: int,
    exercise_id: str | None = None,
    lesson_slug: str | None = None,
    limit: int = 20,
    before: int | None = None,
) -> list[Submission]:
    """One page of the user's submissions, newest first: at most `limit` with an id below
    `before`, to one exercise, or to one lesson's exercises, or (neither) to any."""
    query = select(Submission).where(Submission.user_id == user_id)
    if exercise_id is not None:
        query = query.where(Submission.exercise_id == exercise_id)
    if lesson_slug:
        query = query.join(Exercise, Exercise.id == Submission.exercise_id).where(
            Exercise.lesson_slug == lesson_slug
        )
    if before is not None:
        query = query.where(Submission.id < before)
    rows = await session.scalars(query.order_by(Submission.id.desc()).limit(limit))
    return list(rows.all())


async def claim(*, session: AsyncSession, submission_id: int, lease_s: float) -> Submission | None:
    """Mark a queued submission running under a lease; None if someone else has it, or if
    it still waits behind the student's own earlier submissions."""
    now = utcnow()
    # Loaded from the UPDATE ... RETURNING as a plain statement: the ORM's bulk UPDATE
    # path costs several times the statement on the way of every grading.
    row = SUBMISSIONS.c
    claimed = await session.scalars(
        select(Submission)
        .from_statement(
            update(SUBMISSIONS)
            .where(
                row.id == submission_id,
                row.dispatched_at.is_not(None),
                (row.status == SubmissionStatus.QUEUED)
                | ((row.status == SubmissionStatus.RUNNING) & (row.lease_expires_at < now)),
            )
            .values(
                status=SubmissionStatus.RUNNING,
                attempts=row.attempts + 1,
                started_at=now,
                lease_expires_at=now + timedelta(seconds=lease_s),
            )
            .returning(*row)
        )
        .execution_options(populate_existing=True)
    )
    return claimed.one_or_none()


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
    finished = await execute_core(
        session,
        update(Submission)
        .where(Submission.id == submission.id, Submission.status.in_(SubmissionStatus.UNFINISHED))
        .values(
            status=outcome["status"],
            verdict=outcome["verdict"],
            detail=outcome["detail"],
            runs=runs,
            finished_at=finished_at,
            lease_expires_at=None,
        ),
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


class Gradable(NamedTuple):
    """What a new submission takes from its exercise."""

    id: str
    devices: list[str]


class Admission(NamedTuple):
    recent: int  # this user's submissions of this mode in the last `seconds`
    queued: int  # submissions queued overall, waiting ones included
    in_line: int  # submissions queued for the graders (handed to them, not yet taken)
    own_unfinished: int  # this user's submissions not finished yet
    oldest_recent: datetime | None  # when the oldest of `recent` was made
    exercise: Gradable | None  # the exercise submitted to; None if there is no such live one


async def admission_counts(
    *, session: AsyncSession, user_id: int, exercise_id: str, mode: SubmissionMode, seconds: int
) -> Admission:
    """What admitting one more submission depends on, in one round trip: this runs on every
    submission. Read in the transaction that inserts it, after `fairness.lock_student`, so
    that concurrent submissions of one student see each other (app/submissions/router.py).
    The exercise is read in the same statement: no read transaction of its own, and no
    cache that a content sync in another process could leave stale."""
    since = utcnow() - timedelta(seconds=seconds)
    of_mode = (
        Submission.user_id == user_id,
        Submission.mode == mode,
        Submission.created_at >= since,
    )
    recent = select(func.count()).where(*of_mode).scalar_subquery()
    oldest = select(func.min(Submission.created_at)).where(*of_mode).scalar_subquery()
    queued = (
        select(func.count()).where(Submission.status == SubmissionStatus.QUEUED).scalar_subquery()
    )
    in_line = (
        select(func.count())
        .where(Submission.status == SubmissionStatus.QUEUED, Submission.dispatched_at.is_not(None))
        .scalar_subquery()
    )
    own = (
        select(func.count())
        .where(Submission.user_id == user_id, Submission.status.in_(SubmissionStatus.UNFINISHED))
        .scalar_subquery()
    )
    devices = (
        select(Exercise.devices)
        .where(Exercise.id == exercise_id, is_live(Exercise))
        .scalar_subquery()
    )
    row = (await session.execute(select(recent, queued, in_line, own, oldest, devices))).one()
    return Admission(
        recent=int(row[0]),
        queued=int(row[1]),
        in_line=int(row[2]),
        own_unfinished=int(row[3]),
        oldest_recent=row[4],
        exercise=None if row[5] is None else Gradable(id=exercise_id, devices=list(row[5])),
    )


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


async def solution_reason(
    *, session: AsyncSession, user_id: int, exercise_id: str
) -> RevealReason | None:
    """Why the student may see the sample solution, or None."""
    passed = await session.scalar(
        select(Submission.id)
        .where(
            Submission.user_id == user_id,
            Submission.exercise_id == exercise_id,
            Submission.mode == SubmissionMode.GRADE,
            Submission.verdict == Verdict.PASSED,
        )
        .limit(1)
    )
    if passed is not None:
        return RevealReason.PASSED
    return await session.scalar(
        select(SolutionReveal.reason).where(
            SolutionReveal.user_id == user_id, SolutionReveal.exercise_id == exercise_id
        )
    )


async def give_up(*, session: AsyncSession, user_id: int, exercise_id: str) -> None:
    """Record that the student chose to see the solution; giving up twice is harmless, and
    after passing it is no giving up (their teacher is shown give-ups)."""
    if await solution_reason(session=session, user_id=user_id, exercise_id=exercise_id) == (
        RevealReason.PASSED
    ):
        return
    statement = insert_for(session)(SolutionReveal).values(
        user_id=user_id, exercise_id=exercise_id, reason=RevealReason.GAVE_UP, created_at=utcnow()
    )
    await session.execute(
        statement.on_conflict_do_nothing(index_elements=["user_id", "exercise_id"])
    )


async def revealed(
    *, session: AsyncSession, user_id: int, exercise_ids: list[str]
) -> dict[str, RevealReason]:
    """exercise id -> reason, for the exercises whose solution this student may see
    (two queries, whatever the number of exercises)."""
    reasons: dict[str, RevealReason] = dict(
        (
            await session.execute(
                select(SolutionReveal.exercise_id, SolutionReveal.reason).where(
                    SolutionReveal.user_id == user_id,
                    SolutionReveal.exercise_id.in_(exercise_ids),
                )
            )
        ).all()
    )
    passed = await session.scalars(
        select(Submission.exercise_id)
        .distinct()
        .where(
            Submission.user_id == user_id,
            Submission.exercise_id.in_(exercise_ids),
            Submission.mode == SubmissionMode.GRADE,
            Submission.verdict == Verdict.PASSED,
        )
    )
    reasons.update({exercise_id: RevealReason.PASSED for exercise_id in passed})
    return reasons
