"""Due dates that tell the truth: one student's state on one assigned lesson, how late, and
the score under the assignment's late policy. Every page, the API and the CSV take these
from here.

The effective due date is the student's extension when the teacher gave one, else the
assignment's. Against it a lesson is
- done: every item done, the last of them by the due date (or no due date);
- done_late: every item done, the last after the due date (late by the difference);
- in_progress / not_started: not done, some attempt / none, the due date still ahead;
- overdue_in_progress / overdue_not_started: the same once the due date has passed
  (late by the time since).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal, Protocol, get_args

from app.i18n import N_

State = Literal[
    "done",
    "done_late",
    "in_progress",
    "overdue_in_progress",
    "not_started",
    "overdue_not_started",
]
# In that order: the grid's sort (app/classes/reports/grid.py RANK) ranks them by it.
STATES: tuple[State, ...] = get_args(State)
LATE_STATES: frozenset[str] = frozenset({"done_late", "overdue_in_progress", "overdue_not_started"})
DONE_STATES: frozenset[str] = frozenset({"done", "done_late"})
# Never active: nothing tried, whether the due date passed or not (the grid's filter).
NEVER_ACTIVE: frozenset[str] = frozenset({"not_started", "overdue_not_started"})
STATE_LABELS: dict[str, str] = {
    "done": N_("Done on time"),
    "done_late": N_("Done late"),
    "in_progress": N_("In progress"),
    "overdue_in_progress": N_("In progress, overdue"),
    "not_started": N_("Not started"),
    "overdue_not_started": N_("Not started, overdue"),
}
# Colour is never the only signal: the shape says how far, "!" says past the due date.
STATE_SYMBOLS: dict[str, str] = {
    "done": "✓",
    "done_late": "✓!",
    "in_progress": "◐",
    "overdue_in_progress": "◐!",
    "not_started": "○",
    "overdue_not_started": "○!",
}


class Progress(Protocol):
    @property
    def items_total(self) -> int: ...
    @property
    def items_done(self) -> int: ...
    @property
    def attempts(self) -> int: ...
    @property
    def completed_at(self) -> datetime | None: ...


@dataclass(frozen=True, slots=True)
class LatePolicy:
    """Whether late work counts, and the points of 100 it loses when it does."""

    late_work: bool = True
    penalty_percent: int = 0


def effective_due(assignment_due: datetime | None, extension: datetime | None) -> datetime | None:
    """The student's extension, when given, replaces the assignment's due date."""
    return extension if extension is not None else assignment_due


def is_done(cell: Progress) -> bool:
    return bool(cell.items_total) and cell.items_done >= cell.items_total


def state_of(cell: Progress, due_at: datetime | None, now: datetime) -> State:
    if is_done(cell):
        late = due_at is not None and cell.completed_at is not None and cell.completed_at > due_at
        return "done_late" if late else "done"
    overdue = due_at is not None and now > due_at
    if cell.attempts or cell.items_done:
        return "overdue_in_progress" if overdue else "in_progress"
    return "overdue_not_started" if overdue else "not_started"


def late_by(
    state: str, completed_at: datetime | None, due_at: datetime | None, now: datetime
) -> timedelta | None:
    """How late: finished after the due date by, or past it (and not done) for; None when
    not late."""
    if state not in LATE_STATES or due_at is None:
        return None
    end = completed_at if state == "done_late" and completed_at is not None else now
    return max(end - due_at, timedelta(0))


def hours(delta: timedelta | None) -> float | None:
    return None if delta is None else round(delta.total_seconds() / 3600, 1)


def score_percent(
    *, items_total: int, items_done: int, items_on_time: int, policy: LatePolicy
) -> float:
    """Items done by the due date count in full; items done after it count less the
    penalty if late work counts, and not at all if it does not."""
    if not items_total:
        return 0.0
    on_time = min(items_on_time, items_done)
    late = items_done - on_time
    weight = (100 - policy.penalty_percent) / 100 if policy.late_work else 0.0
    return round(100 * (on_time + late * weight) / items_total, 1)
