"""Fair grading between students. Each student has at most `limit` submissions handed to
the graders at a time (in flight: `dispatched_at` set, not finished); the others wait in
the database, `queued` with `dispatched_at` NULL, and are released oldest first as the
student's earlier ones finish. What the graders take from (the embedded queue, the Redis
queues) stays first-come-first-served but never holds more than `limit` submissions of
one student, so students with work take turns: six slow submissions of one student hold
up another student's for one run at most, not six.

The row is the source of truth, so any web process may release. A release counts the
student's in-flight submissions and picks the oldest waiting ones in one statement: two
releases at once either pick the same rows (the second then updates none) or see each
other's commits. What needs more is a new row racing another new row or a finish of the
same student; on PostgreSQL both lock the student's `users` row first (SQLite has one
writer at a time already). Every finish is followed, in its own transaction, by
`release_next`, so a waiting submission is never left behind by a process that dies."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from sqlalchemy import ColumnElement, Integer, and_, bindparam, case, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from app.db import execute_core
from app.models import Submission, SubmissionStatus, User, utcnow


@dataclass(frozen=True)
class Place:
    """Where an unfinished submission stands. `position`: its place in the graders' line
    (1 is next), while it is queued there. `waiting_for_own`: how many of the student's
    own earlier submissions are still unfinished, while it waits behind them.
    `wait_estimate_s`: about how long until it starts, while it has a `position`."""

    position: int | None = None
    waiting_for_own: int | None = None
    wait_estimate_s: float | None = None


def in_flight(row: Any = Submission) -> ColumnElement[bool]:
    return row.status.in_(SubmissionStatus.UNFINISHED) & row.dispatched_at.is_not(None)


def waiting(row: Any = Submission) -> ColumnElement[bool]:
    return (row.status == SubmissionStatus.QUEUED) & row.dispatched_at.is_(None)


async def lock_student(*, session: AsyncSession, user_id: int | ColumnElement[Any]) -> None:
    """Serialise this transaction with the student's other new rows and finishes. The
    users row is the lock that storage accounting takes too (app/submissions/storage.py)."""
    if session.get_bind().dialect.name == "postgresql":
        await session.execute(select(User.id).where(User.id == user_id).with_for_update())


def dispatched_if_room(*, user_id: Any, limit: Any, now: Any) -> ColumnElement[Any]:
    """The `dispatched_at` of a new row: now if the student has fewer than `limit`
    unfinished submissions (in flight or waiting: a new one never overtakes an older
    one), else NULL. Evaluated inside the INSERT, after `lock_student`. The arguments are
    values or bound parameters (the INSERT is built once: app/submissions/service.py)."""
    own = aliased(Submission)
    unfinished = (
        select(func.count())
        .select_from(own)
        .where(own.user_id == user_id, own.status.in_(SubmissionStatus.UNFINISHED))
        .scalar_subquery()
    )
    return case((unfinished < limit, now), else_=None)


async def release_next(*, session: AsyncSession, limit: int, after: int | None = None) -> list[int]:
    """Hand waiting submissions to the graders while their students have room: those of
    the student whose submission `after` just finished, or (None) of every student, as a
    sweep. Returns their ids in turns: each student's oldest first, then each one's
    second, and so on."""
    if after is not None:
        finished = aliased(Submission)
        owner = select(finished.user_id).where(finished.id == after).scalar_subquery()
        await lock_student(session=session, user_id=owner)
    released = await execute_core(
        session,
        _release_statement(after is not None),
        {"limit": limit, "after": after, "now": utcnow()},
    )
    return in_turns([(row[0], row[1]) for row in released])


@cache
def _release_statement(of_one_student: bool) -> Any:
    """Built once: this runs after every grading, and building (and keying for the
    compiled-statement cache) its aliased subqueries cost more than running it."""
    scope = waiting()
    if of_one_student:
        finished = aliased(Submission)
        owner = (
            select(finished.user_id)
            .where(finished.id == bindparam("after", type_=Integer))
            .scalar_subquery()
        )
        scope &= Submission.user_id == owner
    turn = func.row_number().over(partition_by=Submission.user_id, order_by=Submission.id)
    line = select(Submission.id, Submission.user_id, turn.label("turn")).where(scope).subquery()
    flying = aliased(Submission)
    busy = (
        select(func.count())
        .select_from(flying)
        .where(flying.user_id == line.c.user_id, in_flight(flying))
        .scalar_subquery()
    )
    room = bindparam("limit", type_=Integer) - busy
    return (
        update(Submission)
        .where(Submission.id.in_(select(line.c.id).where(line.c.turn <= room)))
        .values(dispatched_at=bindparam("now", type_=Submission.dispatched_at.type))
        .returning(Submission.id, Submission.user_id)
    )


def in_turns(rows: list[tuple[int, int]]) -> list[int]:
    """(id, user id) pairs in round-robin order between users, each user's in id order."""
    turns: dict[int, int] = defaultdict(int)
    ordered = []
    for ident, user_id in sorted(rows):
        turns[user_id] += 1
        ordered.append((turns[user_id], ident))
    return [ident for _turn, ident in sorted(ordered)]


async def place_of(*, session: AsyncSession, submission: Submission) -> Place:
    """Where the submission stands; no query once it has left the queue."""
    if submission.status != SubmissionStatus.QUEUED:
        return Place()
    if submission.dispatched_at is None:
        ahead = await session.scalar(
            select(func.count()).where(
                Submission.user_id == submission.user_id,
                Submission.status.in_(SubmissionStatus.UNFINISHED),
                Submission.id < submission.id,
            )
        )
        return Place(waiting_for_own=int(ahead or 0))
    # The graders' line is in the order submissions were handed to them.
    ahead = await session.scalar(
        select(func.count()).where(
            Submission.status == SubmissionStatus.QUEUED,
            Submission.dispatched_at.is_not(None),
            or_(
                Submission.dispatched_at < submission.dispatched_at,
                and_(
                    Submission.dispatched_at == submission.dispatched_at,
                    Submission.id < submission.id,
                ),
            ),
        )
    )
    return await with_estimate(session=session, place=Place(position=int(ahead or 0) + 1))


RECENT_RUNS = 50  # the finished submissions the mean run time is taken over


async def with_estimate(*, session: AsyncSession, place: Place) -> Place:
    """`place` with its wait estimated: position × the recent mean run time ÷ the graders
    working now (the submissions running: every process sees the rows, whichever grading
    back end runs them; at least one, the grader that takes the next). Unknown (None)
    outside the graders' line and before anything has been graded."""
    if place.position is None:
        return place
    recent = await session.execute(_recent_runs_statement())
    # Computed here, not in SQL: subtracting timestamps is spelled differently per database.
    rows = recent.all()
    spans = [
        (finished - started).total_seconds()
        for started, finished, _running in rows
        if started is not None and finished is not None
    ]
    if not spans:
        return place
    mean_s = max(0.0, sum(spans) / len(spans))
    estimate = place.position * mean_s / max(1, int(rows[0][2] or 0))
    return replace(place, wait_estimate_s=round(estimate, 1))


@cache
def _recent_runs_statement() -> Any:
    """One statement, built once, on the path of every POST and every poll of a queued
    submission: the recent runs' times, each row carrying the count of submissions
    running now (an uncorrelated subquery)."""
    other = aliased(Submission)
    running = (
        select(func.count())
        .select_from(other)
        .where(other.status == SubmissionStatus.RUNNING)
        .scalar_subquery()
    )
    return (
        select(Submission.started_at, Submission.finished_at, running)
        .where(
            Submission.status == SubmissionStatus.DONE,
            Submission.started_at.is_not(None),
            Submission.finished_at.is_not(None),
        )
        .order_by(Submission.id.desc())
        .limit(RECENT_RUNS)
    )
