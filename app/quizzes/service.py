"""Answering questions: every attempt is recorded, right or wrong."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.i18n import DEFAULT_LANGUAGE
from app.models import Question, QuestionAttempt
from app.quizzes.kinds import Feedback, kind_of
from app.quizzes.schemas import AnswerResult


async def get_question(*, session: AsyncSession, question_id: str) -> Question | None:
    return await session.scalar(
        select(Question).where(Question.id == question_id, ~Question.retired)
    )


async def answer_question(
    *,
    session: AsyncSession,
    user_id: int,
    question: Question,
    answer: Any,
    language: str = DEFAULT_LANGUAGE,
) -> AnswerResult:
    """Raises InvalidAnswer (recording nothing) for an answer of the wrong shape. Checked
    against the question in `language`, as the student read it (a translated template may
    take other words); the explanation in that language."""
    kind = kind_of(question.kind)
    public, key = question.in_language("public", language), question.in_language("key", language)
    checked = kind.check(public, key, answer)
    feedback = (
        Feedback() if checked.correct else kind.feedback_recorded(public, key, checked.recorded)
    )
    session.add(
        QuestionAttempt(
            user_id=user_id,
            question_id=question.id,
            answer=checked.recorded,
            correct=checked.correct,
        )
    )
    await session.flush()
    return AnswerResult(
        correct=checked.correct,
        explanation_html=question.in_language("explanation_html", language),
        correct_answer=checked.correct_answer,
        distance=feedback.distance,
        rows=feedback.rows,
    )


async def last_answers(
    *, session: AsyncSession, user_id: int, lesson_slug: str
) -> dict[str, QuestionAttempt]:
    """The newest attempt per question of a lesson, to show the page as the student left it."""
    attempts = (
        await session.scalars(
            select(QuestionAttempt)
            .join(Question)
            .where(QuestionAttempt.user_id == user_id, Question.lesson_slug == lesson_slug)
            .order_by(QuestionAttempt.id)
        )
    ).all()
    return {attempt.question_id: attempt for attempt in attempts}
