"""A student's progress per lesson, in a fixed number of queries whatever the catalog size."""

from __future__ import annotations

from collections import Counter

from sqlalchemy import Select, distinct, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.lessons.catalog import is_live
from app.lessons.schemas import LessonProgress
from app.lessons.service import LessonLength, lesson_lengths
from app.models import (
    Exercise,
    Lesson,
    Question,
    QuestionAttempt,
    Submission,
    SubmissionMode,
    Verdict,
)


async def _per_lesson(session: AsyncSession, query: Select[str, int]) -> Counter[str]:
    return Counter({slug: count for slug, count in (await session.execute(query)).all()})


async def lesson_progress(*, session: AsyncSession, user_id: int) -> list[LessonProgress]:
    lessons = (
        await session.scalars(select(Lesson.slug).where(is_live(Lesson)).order_by(Lesson.position))
    ).all()
    live_questions = select(Question.lesson_slug, func.count(distinct(Question.id))).where(
        is_live(Question)
    )
    live_exercises = select(Exercise.lesson_slug, func.count(distinct(Exercise.id))).where(
        is_live(Exercise)
    )
    lengths = await lesson_lengths(session=session)
    q_right = await _per_lesson(
        session,
        live_questions.join(QuestionAttempt, QuestionAttempt.question_id == Question.id)
        .where(QuestionAttempt.user_id == user_id, QuestionAttempt.correct)
        .group_by(Question.lesson_slug),
    )
    e_passed = await _per_lesson(
        session,
        live_exercises.join(Submission, Submission.exercise_id == Exercise.id)
        .where(
            Submission.user_id == user_id,
            Submission.mode == SubmissionMode.GRADE,
            Submission.verdict == Verdict.PASSED,
        )
        .group_by(Exercise.lesson_slug),
    )
    return [
        LessonProgress(
            slug=slug,
            questions_total=length.questions,
            questions_correct=q_right[slug],
            exercises_total=length.exercises,
            exercises_passed=e_passed[slug],
            completed=(length.questions + length.exercises) > 0
            and q_right[slug] == length.questions
            and e_passed[slug] == length.exercises,
        )
        for slug in lessons
        for length in [lengths.get(slug, LessonLength())]
    ]
