"""Answering questions: every attempt is recorded, right or wrong; what the student is told
follows app/quizzes/reveal.py."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app import item_progress
from app.db import insert_for
from app.i18n import DEFAULT_LANGUAGE
from app.lti import grades
from app.models import Question, QuestionAttempt
from app.models.attempt import QuestionReveal
from app.quizzes.kinds import kind_of
from app.quizzes.reveal import Standing, result
from app.quizzes.schemas import AnswerResult


class NothingAnswered(LookupError):
    """The student asked to be shown the answer of a question they have not answered."""


async def standing(*, session: AsyncSession, user_id: int, question: Question) -> Standing:
    """Where the student stands with the question now (their attempts and reveal)."""
    rows = await session.execute(
        select(QuestionAttempt.correct, func.count())
        .where(QuestionAttempt.user_id == user_id, QuestionAttempt.question_id == question.id)
        .group_by(QuestionAttempt.correct)
    )
    counts: dict[bool, int] = {correct: count for correct, count in rows}
    asked = await session.scalar(
        select(QuestionReveal.id).where(
            QuestionReveal.user_id == user_id, QuestionReveal.question_id == question.id
        )
    )
    return Standing(
        tries=question.tries,
        wrong=counts.get(False, 0),
        right=counts.get(True, 0) > 0,
        asked=asked is not None,
    )


async def answer_question(
    *,
    session: AsyncSession,
    user_id: int,
    question: Question,
    answer: Any,
    language: str = DEFAULT_LANGUAGE,
) -> AnswerResult:
    """Raises InvalidAnswer (recording nothing) for an answer of the wrong shape, or
    EmptyPart for one with a part left empty. Checked against the question in `language`, as
    the student read it (a translated template may take other words); told in that
    language."""
    kind = kind_of(question.kind)
    public, key = question.in_language("public", language), question.in_language("key", language)
    checked = kind.check(public, key, answer)
    before = await standing(session=session, user_id=user_id, question=question)
    attempt = QuestionAttempt(
        user_id=user_id, question_id=question.id, answer=checked.recorded, correct=checked.correct
    )
    session.add(attempt)
    await session.flush()
    await item_progress.answer_recorded(
        session=session,
        user_id=user_id,
        question=question,
        correct=checked.correct,
        at=attempt.created_at,
    )
    await grades.progress_changed(
        session=session, user_ids=[user_id], lesson_slug=question.lesson_slug
    )
    return result(
        question, language, checked.recorded, checked.correct, before.answered(checked.correct)
    )


async def reveal_answer(
    *,
    session: AsyncSession,
    user_id: int,
    question: Question,
    language: str = DEFAULT_LANGUAGE,
) -> AnswerResult:
    """Show the student the right answer: the result of their last answer, revealed. Asking
    is recorded (once) when the answer was not shown yet. Raises NothingAnswered before a
    first answer."""
    lasts, standings = await lesson_answers(session=session, user_id=user_id, questions=[question])
    last = lasts.get(question.id)
    if last is None:
        raise NothingAnswered(question.id)
    now = standings[question.id]
    if not now.revealed:
        insert = insert_for(session)
        await session.execute(
            insert(QuestionReveal)
            .values(user_id=user_id, question_id=question.id)
            .on_conflict_do_nothing()
        )
    return result(question, language, last.answer, last.correct, replace(now, asked=True))


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


async def lesson_answers(
    *, session: AsyncSession, user_id: int, questions: Iterable[Question]
) -> tuple[dict[str, QuestionAttempt], dict[str, Standing]]:
    """The newest attempt per question (to show the page as the student left it), and where
    the student stands with each question."""
    by_id = {question.id: question for question in questions}
    if not by_id:
        return {}, {}
    attempts = (
        await session.scalars(
            select(QuestionAttempt)
            .where(QuestionAttempt.user_id == user_id, QuestionAttempt.question_id.in_(by_id))
            .order_by(QuestionAttempt.id)
        )
    ).all()
    asked = set(
        (
            await session.scalars(
                select(QuestionReveal.question_id).where(
                    QuestionReveal.user_id == user_id, QuestionReveal.question_id.in_(by_id)
                )
            )
        ).all()
    )
    last: dict[str, QuestionAttempt] = {}
    standings = {
        qid: Standing(tries=question.tries, asked=qid in asked) for qid, question in by_id.items()
    }
    for attempt in attempts:
        last[attempt.question_id] = attempt
        standings[attempt.question_id] = standings[attempt.question_id].answered(attempt.correct)
    return last, standings


async def reveals_by(
    *, session: AsyncSession, user_id: int, question_ids: Iterable[str]
) -> list[QuestionReveal]:
    """The answers a student asked to be shown, oldest first (for their teachers)."""
    ids = list(question_ids)
    if not ids:
        return []
    return list(
        (
            await session.scalars(
                select(QuestionReveal)
                .where(QuestionReveal.user_id == user_id, QuestionReveal.question_id.in_(ids))
                .order_by(QuestionReveal.id)
            )
        ).all()
    )
