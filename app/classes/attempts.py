"""Reading a student's attempts side by side: two submissions' code compared with the one
diff (app/submissions/diff.py), and the students before and after this one in the roster."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from app.classes.reports.drilldown import Event, SubmissionEvent
from app.classes.service import RosterRow, roster
from app.submissions.diff import DiffRow, aligned_rows


@dataclass
class Attempt:
    """A submission as the comparison form lists it: its exercise's title and its number
    among that exercise's submissions (1 for the first)."""

    event: SubmissionEvent
    number: int

    @property
    def id(self) -> int:
        return self.event.submission.id


@dataclass
class Comparison:
    older: Attempt
    newer: Attempt
    rows: list[DiffRow]

    @property
    def same(self) -> bool:
        return not any(row.differs for row in self.rows)


def attempts_in(events: list[Event]) -> list[Attempt]:
    """Every submission of the timeline (before collapsing), oldest first, numbered per
    exercise."""
    counts: dict[str, int] = {}
    found: list[Attempt] = []
    for event in events:
        if isinstance(event, SubmissionEvent):
            exercise = event.exercise.id
            counts[exercise] = counts.get(exercise, 0) + 1
            found.append(Attempt(event, counts[exercise]))
    return found


def previous_attempts(attempts: list[Attempt]) -> dict[int, int]:
    """Submission id → the id of the same exercise's submission before it (the default
    comparison: what changed since the last try)."""
    last: dict[str, int] = {}
    before: dict[int, int] = {}
    for attempt in attempts:
        exercise = attempt.event.exercise.id
        if exercise in last:
            before[attempt.id] = last[exercise]
        last[exercise] = attempt.id
    return before


def compare(attempts: list[Attempt], first: int | None, second: int | None) -> Comparison | None:
    """The two chosen submissions' code, the older on the left; None unless both are this
    student's submissions in this lesson (a stale or crafted link shows no comparison)."""
    by_id = {attempt.id: attempt for attempt in attempts}
    a, b = by_id.get(first or 0), by_id.get(second or 0)
    if a is None or b is None or a.id == b.id:
        return None
    older, newer = (a, b) if a.event.at <= b.event.at else (b, a)
    return Comparison(
        older, newer, aligned_rows(older.event.submission.code, newer.event.submission.code)
    )


@dataclass
class Neighbours:
    previous: RosterRow | None
    next: RosterRow | None
    position: int  # 1-based place in the roster
    total: int


async def neighbours(*, session: AsyncSession, class_id: int, student_id: int) -> Neighbours:
    """The students before and after this one in the roster's order (by name)."""
    students = await roster(session=session, class_id=class_id)
    index = next((i for i, row in enumerate(students) if row.id == student_id), None)
    if index is None:
        return Neighbours(None, None, 0, len(students))
    return Neighbours(
        students[index - 1] if index > 0 else None,
        students[index + 1] if index + 1 < len(students) else None,
        index + 1,
        len(students),
    )
