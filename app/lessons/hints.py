"""Progressive hints of an exercise, unlocked by wrong graded submissions.

The rule: with N the exercise's `hints_after`, hint k (1, 2, ...) can be opened once the
student has made k × N wrong graded submissions (graded, finished, not passed; a platform
error or a try-out run does not count) and has opened hint k − 1. A hint's text is only
given once opened; each opening is recorded once (`HintOpening`), when it first happens, for
the teacher to see.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import insert_for
from app.i18n import N_
from app.models import (
    Exercise,
    HintOpening,
    Submission,
    SubmissionMode,
    SubmissionStatus,
    Verdict,
    utcnow,
)

NO_SUCH_HINT = N_("Hint not found.")
OPEN_THE_ONE_BEFORE = N_("Open the hint before this one first.")
NOT_YET = N_("This hint opens after %(count)s wrong submissions; you have made %(made)s.")


class HintLocked(Exception):
    """The hint cannot be opened yet; `message` (English, with `values`) says why."""

    def __init__(self, message: str, values: dict[str, int] | None = None) -> None:
        self.message = message
        self.values = values or {}
        super().__init__(message % self.values if self.values else message)


@dataclass(frozen=True)
class Hint:
    number: int  # 1 for the first
    unlocks_after: int  # wrong graded submissions it needs
    available: bool  # may be opened now (or already was)
    opened_at: datetime | None
    text_html: str | None  # only once opened

    @property
    def opened(self) -> bool:
        return self.opened_at is not None


@dataclass(frozen=True)
class Hints:
    wrong_submissions: int
    hints_after: int
    hints: list[Hint]


# A wrong graded submission: graded, finished, and not passed.
_WRONG = (
    Submission.mode == SubmissionMode.GRADE,
    Submission.status == SubmissionStatus.DONE,
    Submission.verdict != Verdict.PASSED,
)


async def openings(
    *, session: AsyncSession, user_id: int, exercise_ids: list[str]
) -> dict[str, dict[int, datetime]]:
    """exercise id -> {hint index (0-based) -> when the student opened it}."""
    rows = await session.execute(
        select(HintOpening.exercise_id, HintOpening.hint_index, HintOpening.opened_at).where(
            HintOpening.user_id == user_id, HintOpening.exercise_id.in_(exercise_ids)
        )
    )
    found: dict[str, dict[int, datetime]] = {}
    for exercise_id, index, opened_at in rows:
        found.setdefault(exercise_id, {})[index] = opened_at
    return found


async def _progress(
    *, session: AsyncSession, user_id: int, exercise_ids: list[str]
) -> tuple[dict[str, int], dict[str, dict[int, datetime]]]:
    """exercise id -> the student's wrong graded submissions, and -> their openings (two
    queries, whatever the number of exercises)."""
    wrong = await session.execute(
        select(Submission.exercise_id, func.count())
        .where(Submission.user_id == user_id, Submission.exercise_id.in_(exercise_ids))
        .where(*_WRONG)
        .group_by(Submission.exercise_id)
    )
    counts = {exercise_id: int(count) for exercise_id, count in wrong.all()}
    return counts, await openings(session=session, user_id=user_id, exercise_ids=exercise_ids)


async def hints_of(
    *, session: AsyncSession, user_id: int, exercise: Exercise, language: str
) -> Hints:
    """The exercise's hints as this student may see them, in `language`."""
    wrong, opened = await _progress(session=session, user_id=user_id, exercise_ids=[exercise.id])
    return _hints(exercise, wrong.get(exercise.id, 0), opened.get(exercise.id, {}), language)


async def lesson_hints(
    *, session: AsyncSession, user_id: int, exercises: list[Exercise], language: str
) -> dict[str, Hints]:
    """exercise id -> its hints for this student, for the exercises that have any (two
    queries, whatever the number of exercises)."""
    with_hints = [e for e in exercises if e.hints]
    if not with_hints:
        return {}
    ids = [e.id for e in with_hints]
    wrong, opened = await _progress(session=session, user_id=user_id, exercise_ids=ids)
    return {e.id: _hints(e, wrong.get(e.id, 0), opened.get(e.id, {}), language) for e in with_hints}


def _hints(exercise: Exercise, wrong: int, opened: dict[int, datetime], language: str) -> Hints:
    texts: list[str] = exercise.in_language("hints", language)
    if len(texts) != len(exercise.hints):  # a translation out of step: the English
        texts = exercise.hints
    hints = []
    for index, text in enumerate(texts):
        needed = (index + 1) * exercise.hints_after
        opened_at = opened.get(index)
        hints.append(
            Hint(
                number=index + 1,
                unlocks_after=needed,
                available=opened_at is not None
                or (wrong >= needed and (index == 0 or index - 1 in opened)),
                opened_at=opened_at,
                text_html=text if opened_at is not None else None,
            )
        )
    return Hints(wrong_submissions=wrong, hints_after=exercise.hints_after, hints=hints)


async def open_hint(
    *, session: AsyncSession, user_id: int, exercise: Exercise, number: int, language: str
) -> Hint:
    """Open hint `number` (1-based) and return it with its text; opening it again changes
    nothing. Raises LookupError for a hint the exercise does not have, HintLocked for one
    not unlocked yet."""
    if not 1 <= number <= len(exercise.hints):
        raise LookupError(NO_SUCH_HINT)
    index = number - 1
    counts, openings_of = await _progress(
        session=session, user_id=user_id, exercise_ids=[exercise.id]
    )
    wrong, opened = counts.get(exercise.id, 0), openings_of.get(exercise.id, {})
    if index not in opened:
        needed = number * exercise.hints_after
        if wrong < needed:
            raise HintLocked(NOT_YET, {"count": needed, "made": wrong})
        if index > 0 and index - 1 not in opened:
            raise HintLocked(OPEN_THE_ONE_BEFORE)
        now = utcnow()
        # Two tabs opening it at once record it once: the first opening is the one kept.
        await session.execute(
            insert_for(session)(HintOpening)
            .values(user_id=user_id, exercise_id=exercise.id, hint_index=index, opened_at=now)
            .on_conflict_do_nothing(index_elements=["user_id", "exercise_id", "hint_index"])
        )
        opened[index] = now
        await session.flush()
    return _hints(exercise, wrong, opened, language).hints[index]


async def opened_by(
    *, session: AsyncSession, user_id: int, exercise_ids: list[str]
) -> list[HintOpening]:
    """Every hint the student opened among these exercises, oldest first (for teachers)."""
    if not exercise_ids:
        return []
    rows = await session.scalars(
        select(HintOpening)
        .where(HintOpening.user_id == user_id, HintOpening.exercise_id.in_(exercise_ids))
        .order_by(HintOpening.opened_at, HintOpening.id)
    )
    return list(rows.all())
