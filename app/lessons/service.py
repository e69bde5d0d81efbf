"""The catalog as the database holds it; retired content is invisible here."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Exercise, Lesson, Question, Track


@dataclass
class TrackWithLessons:
    track: Track
    lessons: list[Lesson]


@dataclass
class LessonDetail:
    lesson: Lesson
    track: Track
    questions: list[Question]
    exercises: list[Exercise]


@dataclass(frozen=True)
class LessonLength:
    """How much a lesson asks: its live questions and exercises."""

    questions: int = 0
    exercises: int = 0


async def lesson_lengths(*, session: AsyncSession) -> dict[str, LessonLength]:
    """Each lesson's length by slug (a lesson with neither questions nor exercises is
    missing), in two grouped counts whatever the catalog size."""
    counts = [
        {
            slug: count
            for slug, count in (
                await session.execute(
                    select(table.lesson_slug, func.count())
                    .where(~table.retired)
                    .group_by(table.lesson_slug)
                )
            ).all()
        }
        for table in (Question, Exercise)
    ]
    questions, exercises = counts
    return {
        slug: LessonLength(questions.get(slug, 0), exercises.get(slug, 0))
        for slug in questions.keys() | exercises.keys()
    }


async def list_tracks(*, session: AsyncSession) -> list[TrackWithLessons]:
    tracks = (
        await session.scalars(select(Track).where(~Track.retired).order_by(Track.position))
    ).all()
    lessons = (
        await session.scalars(select(Lesson).where(~Lesson.retired).order_by(Lesson.position))
    ).all()
    return [
        TrackWithLessons(t, [lesson for lesson in lessons if lesson.track_slug == t.slug])
        for t in tracks
    ]


async def get_lesson(*, session: AsyncSession, slug: str) -> LessonDetail | None:
    lesson = await session.scalar(select(Lesson).where(Lesson.slug == slug, ~Lesson.retired))
    if lesson is None:
        return None
    track = await session.get_one(Track, lesson.track_slug)
    questions = (
        await session.scalars(
            select(Question)
            .where(Question.lesson_slug == slug, ~Question.retired)
            .order_by(Question.position)
        )
    ).all()
    exercises = (
        await session.scalars(
            select(Exercise)
            .where(Exercise.lesson_slug == slug, ~Exercise.retired)
            .order_by(Exercise.position)
        )
    ).all()
    return LessonDetail(lesson, track, list(questions), list(exercises))


async def get_exercise(*, session: AsyncSession, exercise_id: str) -> Exercise | None:
    return await session.scalar(
        select(Exercise).where(Exercise.id == exercise_id, ~Exercise.retired)
    )


async def lessons_by_slug(*, session: AsyncSession, slugs: list[str]) -> list[Lesson]:
    rows = (
        await session.scalars(select(Lesson).where(Lesson.slug.in_(slugs), ~Lesson.retired))
    ).all()
    order = {slug: index for index, slug in enumerate(slugs)}
    return sorted(rows, key=lambda lesson: order[lesson.slug])


async def lessons_building_on(*, session: AsyncSession, slug: str) -> list[Lesson]:
    # Prerequisites are a short JSON list per lesson; filtering in Python keeps this
    # portable across SQLite and PostgreSQL JSON operators.
    lessons = (
        await session.scalars(select(Lesson).where(~Lesson.retired).order_by(Lesson.position))
    ).all()
    return [lesson for lesson in lessons if slug in lesson.prerequisites]
