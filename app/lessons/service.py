"""The catalog as the database holds it, built on the live-content queries
(app/lessons/catalog.py): retired content is invisible here."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.lessons.catalog import is_live, live, live_lesson
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
                    .where(is_live(table))
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
    tracks = (await session.scalars(live(Track))).all()
    lessons = (await session.scalars(live(Lesson))).all()
    return [
        TrackWithLessons(t, [lesson for lesson in lessons if lesson.track_slug == t.slug])
        for t in tracks
    ]


async def get_lesson(*, session: AsyncSession, slug: str) -> LessonDetail | None:
    lesson = await live_lesson(session=session, slug=slug)
    if lesson is None:
        return None
    track = await session.get_one(Track, lesson.track_slug)
    questions = (await session.scalars(live(Question).where(Question.lesson_slug == slug))).all()
    exercises = (await session.scalars(live(Exercise).where(Exercise.lesson_slug == slug))).all()
    return LessonDetail(lesson, track, list(questions), list(exercises))


async def lessons_by_slug(*, session: AsyncSession, slugs: list[str]) -> list[Lesson]:
    rows = (await session.scalars(live(Lesson).where(Lesson.slug.in_(slugs)))).all()
    order = {slug: index for index, slug in enumerate(slugs)}
    return sorted(rows, key=lambda lesson: order[lesson.slug])


async def lessons_building_on(*, session: AsyncSession, slug: str) -> list[Lesson]:
    # Prerequisites are a short JSON list per lesson; filtering in Python keeps this
    # portable across SQLite and PostgreSQL JSON operators.
    lessons = (await session.scalars(live(Lesson))).all()
    return [lesson for lesson in lessons if slug in lesson.prerequisites]
