"""Live content: the tracks, lessons, questions and exercises the course has now.

Content that leaves `exercises/` stays in the database as a `retired` row, so that the
attempts and submissions made on it are kept (app/content/sync.py); nobody is shown it,
nor counted against it. Every read of content for people starts here, so the rule is
written once: `live(Model)` for rows, `is_live(Model)` for a query that selects columns,
counts or joins, and a live row by its key. It imports nothing but the models, so every
domain may use it (.importlinter)."""

from __future__ import annotations

from typing import TypeVar

from sqlalchemy import ColumnElement, Select, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Exercise, Lesson, Question, Track

Content = TypeVar("Content", bound=Track | Lesson | Question | Exercise)


def is_live(model: type[Content]) -> ColumnElement[bool]:
    """The condition a row of `model` meets while the course has it (not retired)."""
    return ~model.retired


def live(model: type[Content]) -> Select[Content]:
    """Every live row of `model` by position (a question's or an exercise's is its place in
    its lesson), ties by key, so the order is the same on every database; narrow it with
    `.where`."""
    return (
        select(model).where(is_live(model)).order_by(model.position, *model.__mapper__.primary_key)
    )


async def live_lesson(*, session: AsyncSession, slug: str) -> Lesson | None:
    return await session.scalar(live(Lesson).where(Lesson.slug == slug))


async def live_question(*, session: AsyncSession, question_id: str) -> Question | None:
    return await session.scalar(live(Question).where(Question.id == question_id))


async def live_exercise(*, session: AsyncSession, exercise_id: str) -> Exercise | None:
    return await session.scalar(live(Exercise).where(Exercise.id == exercise_id))
