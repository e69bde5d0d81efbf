"""What the lesson page shows under each exercise: the student's recent submissions, and
the devices it is graded on here."""

from __future__ import annotations

import time
import weakref
from typing import TYPE_CHECKING

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Submission

if TYPE_CHECKING:
    from app.grading.backend import GradingBackend


async def recent_by_exercise(
    *, session: AsyncSession, user_id: int, exercise_ids: list[str], per_exercise: int = 10
) -> dict[str, list[Submission]]:
    """The newest `per_exercise` graded submissions and the newest `per_exercise` try-out
    runs of each exercise, together, newest first (the page lists the two apart, so that
    many try-outs never push the graded ones out): only those rows are read, however long
    the student's history (the rest is in the paged JSON list)."""
    rank = (
        func.row_number()
        .over(
            partition_by=(Submission.exercise_id, Submission.mode),
            order_by=Submission.id.desc(),
        )
        .label("rank")
    )
    ranked = (
        select(Submission.id, rank)
        .where(Submission.user_id == user_id, Submission.exercise_id.in_(exercise_ids))
        .subquery()
    )
    rows = await session.scalars(
        select(Submission)
        .join(ranked, ranked.c.id == Submission.id)
        .where(ranked.c.rank <= per_exercise)
        .order_by(Submission.id.desc())
    )
    history: dict[str, list[Submission]] = {ident: [] for ident in exercise_ids}
    for row in rows:
        history[row.exercise_id].append(row)
    return history


# Device types graded on right now, per grading back end, for a few seconds: in distributed
# mode asking costs a scan of the workers' presence keys in Redis, and lesson pages are many.
_DEVICES_FRESH_S = 5.0
_devices_seen: weakref.WeakKeyDictionary[object, tuple[float, frozenset[str]]] = (
    weakref.WeakKeyDictionary()
)


async def devices_graded_now(grading: GradingBackend | None) -> frozenset[str]:
    """The device types this platform grades on now: those with a live grader (embedded:
    the in-process grader's, once started). A device an exercise lists and this set lacks
    gets a "not graded here" run, never a failure."""
    if grading is None:
        return frozenset()
    seen = _devices_seen.get(grading)
    if seen is not None and time.monotonic() - seen[0] < _DEVICES_FRESH_S:
        return seen[1]
    devices = frozenset(device for device, count in (await grading.workers()).items() if count)
    _devices_seen[grading] = (time.monotonic(), devices)
    return devices
