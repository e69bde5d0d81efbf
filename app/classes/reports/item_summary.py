"""The drill-down's summary: one line per live item of the lesson (each question, then each
exercise) before the timeline, so that sixteen attempts read as one row.

Per item: the best result (right, or an exercise's passing verdict; else the latest graded
verdict), attempts (answers, or graded submissions, as the grid counts them), time spent
(from the first thing done on the item to its first success, or to the last thing done when
there is none: try-outs and hints count as work), whether the student gave up (a question:
asked to be shown its answer), and the hints they opened."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from app.classes.reports.drilldown import (
    AnswerEvent,
    AnswerRequestedEvent,
    Event,
    GaveUpEvent,
    HintEvent,
    SubmissionEvent,
)
from app.classes.service import live_items
from app.i18n import gettext
from app.models import SubmissionMode, SubmissionStatus, Verdict


@dataclass
class ItemSummary:
    kind: str  # "question" or "exercise"
    item_id: str
    label: str
    number: int  # the question's number, or the exercise's place in the lesson (1-based)
    best: str | None = None  # "right"/"wrong" for a question, a Verdict for an exercise
    attempts: int = 0
    first_at: datetime | None = None
    done_at: datetime | None = None
    last_at: datetime | None = None
    gave_up: bool = False  # a question: the student asked to be shown its answer
    hints: int = 0

    @property
    def done(self) -> bool:
        return self.best in ("right", Verdict.PASSED)

    @property
    def spent(self) -> timedelta | None:
        end = self.done_at or self.last_at
        return end - self.first_at if self.first_at and end else None

    def touch(self, at: datetime) -> None:
        self.first_at = min(self.first_at, at) if self.first_at else at
        self.last_at = max(self.last_at, at) if self.last_at else at


def spent_label(spent: timedelta | None) -> str:
    """ "under a minute", "12 min", "3 h 5 min", "2 d 4 h": precise enough for a glance."""
    if spent is None:
        return "—"
    minutes = int(spent.total_seconds() // 60)
    if minutes < 1:
        return gettext("under a minute")
    if minutes < 60:
        return gettext("%(minutes)s min") % {"minutes": minutes}
    hours, minutes = divmod(minutes, 60)
    if hours < 24:
        return gettext("%(hours)s h %(minutes)s min") % {"hours": hours, "minutes": minutes}
    days, hours = divmod(hours, 24)
    return gettext("%(days)s d %(hours)s h") % {"days": days, "hours": hours}


async def summarize(
    *, session: AsyncSession, lesson_slug: str, events: list[Event], language: str
) -> list[ItemSummary]:
    questions, exercises = await live_items(session=session, slugs=[lesson_slug])
    rows: dict[str, ItemSummary] = {}
    for number, question in enumerate(questions, start=1):
        label = gettext("Question %(number)s") % {"number": number}
        rows[f"q:{question.id}"] = ItemSummary("question", question.id, label, number)
    for number, exercise in enumerate(exercises, start=1):
        title = str(exercise.in_language("title", language))
        rows[f"e:{exercise.id}"] = ItemSummary("exercise", exercise.id, title, number)
    for event in events:  # oldest first
        if isinstance(event, AnswerEvent):
            row = rows.get(f"q:{event.question.id}")
            if row is None:  # a retired question
                continue
            row.touch(event.at)
            row.attempts += 1
            if event.attempt.correct and not row.done:
                row.best, row.done_at = "right", event.at
            elif not row.done:
                row.best = "wrong"
            continue
        if isinstance(event, AnswerRequestedEvent):
            row = rows.get(f"q:{event.question.id}")
            if row is not None:
                row.gave_up = True
            continue
        row = rows.get(f"e:{event.exercise.id}")
        if row is None:
            continue
        row.touch(event.at)
        if isinstance(event, HintEvent):
            row.hints += 1
        elif isinstance(event, GaveUpEvent):
            row.gave_up = True
        elif isinstance(event, SubmissionEvent):
            submission = event.submission
            graded = (
                submission.mode == SubmissionMode.GRADE
                and submission.status == SubmissionStatus.DONE
            )
            if not graded:
                continue
            row.attempts += 1
            if row.done:
                continue
            row.best = submission.verdict
            if submission.verdict == Verdict.PASSED:
                row.done_at = event.at
    return list(rows.values())
