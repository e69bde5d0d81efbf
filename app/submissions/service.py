"""Submissions: accepted and stored queued (admission counts), the student's own reads,
giving up and solution reveals. What the graders return is recorded by
app/grading/recording.py. Never commits."""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import cache
from typing import Any, NamedTuple

from sqlalchemy import Integer, String, bindparam, func, insert, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import insert_for, table_of
from app.grading import fairness
from app.lessons.catalog import is_live
from app.models import (
    Exercise,
    RevealReason,
    SolutionReveal,
    Submission,
    SubmissionMode,
    SubmissionStatus,
    Verdict,
    utcnow,
)
from app.submissions import storage


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
    values = {"new_user_id": user_id, "new_exercise_id": exercise.id, "new_code": code}
    values |= {"new_mode": mode, "new_devices": devices, "new_created_at": utcnow()}
    values["limit"] = in_flight_limit
    submission = (await session.scalars(_new_row_statement(), values)).one()
    await storage.add_stored_bytes(session=session, user_id=user_id, delta=storage.utf8_len(code))
    return submission


@cache
def _new_row_statement() -> Any:
    """The INSERT of a new submission, built once (it runs on every submission: building
    and keying it cost more than running it) and loaded as the object from its RETURNING,
    past the ORM's bulk-INSERT path. Its student's room is counted inside it."""
    submissions = table_of(Submission)
    row = submissions.c
    named = ("user_id", "exercise_id", "code", "mode", "devices", "created_at")
    # (A parameter may not be named as the column it sets.)
    values: dict[str, Any] = {
        name: bindparam(f"new_{name}", type_=row[name].type) for name in named
    }
    values["dispatched_at"] = fairness.dispatched_if_room(
        user_id=values["user_id"],
        limit=bindparam("limit", type_=Integer),
        now=values["created_at"],
    )
    inserted = insert(submissions).values(**values).returning(*row)
    return select(Submission).from_statement(inserted)


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
    parameters = {"user_id": user_id, "mode": mode, "exercise_id": exercise_id}
    parameters["since"] = utcnow() - timedelta(seconds=seconds)
    row = (await session.execute(_admission_statement(), parameters)).one()
    return Admission(
        recent=int(row[0]),
        queued=int(row[1]),
        in_line=int(row[2]),
        own_unfinished=int(row[3]),
        oldest_recent=row[4],
        exercise=None if row[5] is None else Gradable(id=exercise_id, devices=list(row[5])),
    )


@cache
def _admission_statement() -> Any:
    """admission_counts' one statement, built once: it runs on every submission."""
    user_id = bindparam("user_id", type_=Integer)
    of_mode = (
        Submission.user_id == user_id,
        Submission.mode == bindparam("mode", type_=Submission.mode.type),
        Submission.created_at >= bindparam("since", type_=Submission.created_at.type),
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
        .where(Exercise.id == bindparam("exercise_id", type_=String), is_live(Exercise))
        .scalar_subquery()
    )
    return select(recent, queued, in_line, own, oldest, devices)


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
