"""One lesson's column of the grid opened into one column per question and exercise, so
"1/2e" says which exercise: per student and item, right or not and the attempts, in two
GROUP BY queries whatever the size of the class."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import case, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.classes.answers import plain
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
class ItemColumn:
    id: str
    kind: str  # "question" or "exercise"
    title: str
    short: str  # "q1", "e2": the column's heading


@dataclass(frozen=True)
class Mark:
    right: bool
    attempts: int


@dataclass
class Expanded:
    slug: str
    items: list[ItemColumn]
    marks: dict[tuple[int, str], Mark]

    def mark(self, student_id: int, item_id: str) -> Mark | None:
        """None: not tried."""
        return self.marks.get((student_id, item_id))


async def expand_lesson(*, session: AsyncSession, class_id: int, slug: str) -> Expanded:
    questions = await session.execute(
        select(Question.id, Question.prompt_html, Question.translations)
        .where(is_live(Question), Question.lesson_slug == slug)
        .order_by(Question.position)
    )
    exercises = await session.execute(
        select(Exercise.id, Exercise.title, Exercise.translations)
        .where(is_live(Exercise), Exercise.lesson_slug == slug)
        .order_by(Exercise.position)
    )
    language = current_language()
    items = [
        ItemColumn(
            qid, "question", plain(translated(words, language, "prompt_html", prompt), 70), f"q{n}"
        )
        for n, (qid, prompt, words) in enumerate(questions, 1)
    ] + [
        ItemColumn(eid, "exercise", translated(words, language, "title", title), f"e{n}")
        for n, (eid, title, words) in enumerate(exercises, 1)
    ]
    members = active_members(class_id)
    marks: dict[tuple[int, str], Mark] = {}
    answered = await session.execute(
        select(
            QuestionAttempt.user_id,
            QuestionAttempt.question_id,
            func.max(case((QuestionAttempt.correct, 1), else_=0)),
            func.count(),
        )
        .join(Question, Question.id == QuestionAttempt.question_id)
        .where(QuestionAttempt.user_id.in_(members), Question.lesson_slug == slug)
        .group_by(QuestionAttempt.user_id, QuestionAttempt.question_id)
    )
    submitted = await session.execute(
        select(
            Submission.user_id,
            Submission.exercise_id,
            func.max(case((Submission.verdict == Verdict.PASSED, 1), else_=0)),
            func.count(),
        )
        .join(Exercise, Exercise.id == Submission.exercise_id)
        .where(Submission.user_id.in_(members), Exercise.lesson_slug == slug)
        .where(Submission.mode == SubmissionMode.GRADE, Submission.status == SubmissionStatus.DONE)
        .group_by(Submission.user_id, Submission.exercise_id)
    )
    for rows in (answered, submitted):
        for user_id, item_id, ok, count in rows:
            marks[(user_id, item_id)] = Mark(bool(ok), int(count))
    return Expanded(slug, items, marks)
