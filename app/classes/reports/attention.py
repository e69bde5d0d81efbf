"""Who in a class needs attention, and why: stuck on an item (some failed attempts on a
question or exercise, and never right), or idle (no activity for some days, or never any,
while a lesson is due soon or overdue and not done).

Built on the grid (its cells know each student's due dates and last activity) plus two
GROUP BY queries, one per item kind, so the cost does not grow with the class.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import case, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.classes import due
from app.classes.answers import plain
from app.classes.reports.grid import Grid, GridStudent
from app.classes.service import active_members
from app.i18n import current_language
from app.lessons.catalog import is_live
from app.models import (
    Exercise,
    Question,
    QuestionAttempt,
    Submission,
    SubmissionMode,
    SubmissionStatus,
    Verdict,
)
from app.models.content import translated


@dataclass(frozen=True)
class Thresholds:
    failed_attempts: int = 3
    idle_days: int = 7
    due_within_days: int = 3


@dataclass
class Stuck:
    """An item a student failed `failed` times and never got right."""

    lesson_slug: str
    lesson_title: str
    item_id: str
    kind: str  # "question" or "exercise"
    title: str
    failed: int
    last_at: datetime | None


@dataclass
class Idle:
    """No activity for `days` days (None: never any) while `lesson_slug` is due or overdue."""

    days: int | None
    lesson_slug: str
    lesson_title: str
    due_at: datetime
    overdue: bool


@dataclass
class Flagged:
    student: GridStudent
    last_activity_at: datetime | None
    stuck: list[Stuck] = field(default_factory=list)
    idle: Idle | None = None

    @property
    def first_lesson(self) -> str:
        """The lesson whose drill-down shows the trouble first."""
        return (
            self.stuck[0].lesson_slug if self.stuck else self.idle.lesson_slug if self.idle else ""
        )


async def _stuck_rows(
    session: AsyncSession, class_id: int, slugs: list[str], failed: int
) -> list[tuple[int, str, str, str, int, datetime | None]]:
    """(student, item, kind, lesson, failed attempts, last attempt) for items never right."""
    members = active_members(class_id)
    questions = (
        select(
            QuestionAttempt.user_id,
            QuestionAttempt.question_id,
            Question.lesson_slug,
            func.count(),
            func.max(QuestionAttempt.created_at),
        )
        .join(Question, Question.id == QuestionAttempt.question_id)
        .where(QuestionAttempt.user_id.in_(members), is_live(Question))
        .where(Question.lesson_slug.in_(slugs))
        .group_by(QuestionAttempt.user_id, QuestionAttempt.question_id, Question.lesson_slug)
        .having(func.max(case((QuestionAttempt.correct, 1), else_=0)) == 0)
        .having(func.count() >= failed)
    )
    passed = Submission.verdict == Verdict.PASSED
    exercises = (
        select(
            Submission.user_id,
            Submission.exercise_id,
            Exercise.lesson_slug,
            func.count(),
            func.max(Submission.created_at),
        )
        .join(Exercise, Exercise.id == Submission.exercise_id)
        .where(Submission.user_id.in_(members), is_live(Exercise))
        .where(Exercise.lesson_slug.in_(slugs))
        # Graded runs only: a submission that was never graded is no failed attempt.
        .where(Submission.mode == SubmissionMode.GRADE, Submission.status == SubmissionStatus.DONE)
        .where(Submission.verdict.is_not(None))
        .group_by(Submission.user_id, Submission.exercise_id, Exercise.lesson_slug)
        .having(func.max(case((passed, 1), else_=0)) == 0)
        .having(func.count() >= failed)
    )
    rows: list[tuple[int, str, str, str, int, datetime | None]] = []
    for kind, query in (("question", questions), ("exercise", exercises)):
        for user_id, item_id, slug, count, last in await session.execute(query):
            rows.append((user_id, item_id, kind, slug, int(count), last))
    return rows


async def _titles(
    session: AsyncSession, question_ids: set[str], exercise_ids: set[str]
) -> dict[str, str]:
    titles: dict[str, str] = {}
    language = current_language()
    if question_ids:
        rows = await session.execute(
            select(Question.id, Question.prompt_html, Question.translations).where(
                Question.id.in_(question_ids)
            )
        )
        titles.update(
            {
                qid: plain(translated(words, language, "prompt_html", prompt), 70)
                for qid, prompt, words in rows
            }
        )
    if exercise_ids:
        rows = await session.execute(
            select(Exercise.id, Exercise.title, Exercise.translations).where(
                Exercise.id.in_(exercise_ids)
            )
        )
        titles.update(
            {eid: translated(words, language, "title", title) for eid, title, words in rows}
        )
    return titles


def _idle(grid: Grid, student: GridStudent, thresholds: Thresholds, now: datetime) -> Idle | None:
    times = [
        c.last_activity_at
        for lesson in grid.lessons
        if (c := grid.cell(student.id, lesson.slug)).last_activity_at
    ]
    last = max(times) if times else None
    if last is not None and now - last < timedelta(days=thresholds.idle_days):
        return None
    horizon = now + timedelta(days=thresholds.due_within_days)
    pending = [
        (cell.due_at, lesson)
        for lesson in grid.lessons
        if (cell := grid.cell(student.id, lesson.slug)).due_at is not None
        and cell.due_at <= horizon
        and cell.state not in due.DONE_STATES
    ]
    if not pending:
        return None
    due_at, lesson = min(pending, key=lambda pair: pair[0] or now)
    assert due_at is not None
    return Idle(
        days=None if last is None else (now - last).days,
        lesson_slug=lesson.slug,
        lesson_title=lesson.title,
        due_at=due_at,
        overdue=due_at < now,
    )


async def needs_attention(
    *, session: AsyncSession, class_id: int, grid: Grid, thresholds: Thresholds, now: datetime
) -> list[Flagged]:
    """The students who are stuck or idle, the most troubled first (overdue, then most
    stuck items), then by name."""
    slugs = [lesson.slug for lesson in grid.lessons]
    if not grid.students or not slugs:
        return []
    rows = await _stuck_rows(session, class_id, slugs, thresholds.failed_attempts)
    titles = await _titles(
        session,
        {item for _, item, kind, *_ in rows if kind == "question"},
        {item for _, item, kind, *_ in rows if kind == "exercise"},
    )
    lesson_titles = {lesson.slug: lesson.title for lesson in grid.lessons}
    order = {slug: index for index, slug in enumerate(slugs)}
    stuck: dict[int, list[Stuck]] = {}
    for user_id, item_id, kind, slug, count, last in rows:
        stuck.setdefault(user_id, []).append(
            Stuck(
                slug, lesson_titles[slug], item_id, kind, titles.get(item_id, item_id), count, last
            )
        )
    flagged: list[Flagged] = []
    for student in grid.students:
        idle = _idle(grid, student, thresholds, now)
        items = sorted(stuck.get(student.id, []), key=lambda s: (order[s.lesson_slug], -s.failed))
        if not items and idle is None:
            continue
        times = [
            c.last_activity_at
            for lesson in grid.lessons
            if (c := grid.cell(student.id, lesson.slug)).last_activity_at
        ]
        flagged.append(Flagged(student, max(times) if times else None, items, idle))
    flagged.sort(
        key=lambda f: (
            not (f.idle and f.idle.overdue),
            -len(f.stuck),
            (f.student.display_name or f.student.username).lower(),
        )
    )
    return flagged
