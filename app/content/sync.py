"""Copy a validated catalog into the database: idempotent, keyed by the content's own ids."""

from __future__ import annotations

from typing import Any, TypeVar

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app import item_progress
from app.content.loader import Catalog
from app.models import Base, Exercise, Lesson, Question, Track
from app.submissions import regrade

Row = TypeVar("Row", bound=Base)


async def _rows(session: AsyncSession, model: type[Row], key: str) -> dict[Any, Row]:
    return {getattr(row, key): row for row in (await session.scalars(select(model))).all()}


async def _upsert(
    session: AsyncSession,
    model: type[Row],
    key: str,
    wanted: dict[str, dict[str, Any]],
    existing: dict[Any, Row] | None = None,
) -> set[Any]:
    """`existing`: the model's rows by `key`, where the caller has read them already.
    Returns the keys of rows that were there and moved to another lesson."""
    moved: set[Any] = set()
    if existing is None:
        existing = await _rows(session, model, key)
    for ident, values in wanted.items():
        row = existing.get(ident)
        if row is None:
            session.add(model(**{key: ident}, **values, retired=False))
            continue
        for name, value in values.items():
            if getattr(row, name) != value:
                setattr(row, name, value)
                if name == "lesson_slug":
                    moved.add(ident)
        row.retired = False  # type: ignore[attr-defined]
    for ident, row in existing.items():
        if ident not in wanted:
            row.retired = True  # type: ignore[attr-defined]
    await session.flush()
    return moved


async def sync_catalog(*, session: AsyncSession, catalog: Catalog) -> None:
    tracks = {
        track.slug: {
            "title": track.title,
            "level": track.level,
            "position": index,
            "translations": track.translations,
        }
        for index, track in enumerate(catalog.tracks)
    }
    lessons: dict[str, dict[str, Any]] = {}
    questions: dict[str, dict[str, Any]] = {}
    exercises: dict[str, dict[str, Any]] = {}
    for index, lesson in enumerate(catalog.lessons):
        lessons[lesson.slug] = {
            "track_slug": lesson.track_slug,
            "position": index,
            "title": lesson.title,
            "level": lesson.level,
            "summary": lesson.summary,
            "prerequisites": lesson.prerequisites,
            "body_html": lesson.body_html,
            "translations": lesson.translations,
        }
        for position, q in enumerate(lesson.questions):
            questions[q.id] = {
                "lesson_slug": lesson.slug,
                "position": position,
                "kind": q.kind,
                "prompt_html": q.prompt_html,
                "public": q.public,
                "key": q.key,
                "explanation_html": q.explanation_html,
                "tries": q.tries,
                "translations": q.translations,
            }
        for position, e in enumerate(lesson.exercises):
            exercises[e.id] = {
                "lesson_slug": lesson.slug,
                "position": position,
                "title": e.title,
                "prompt_html": e.prompt_html,
                "starter_code": e.starter_code,
                "solution_code": e.solution_code,
                "expected_output": e.expected_output,
                "devices": e.devices,
                "comparison": e.comparison,
                "limits": e.limits,
                "setup": e.setup,
                "variants": [
                    {"name": v.name, "setup": v.setup, "expected_output": v.expected_output}
                    for v in e.variants
                ],
                "hints": e.hints,
                "hints_after": e.hints_after,
                "translations": e.translations,
            }
    await _upsert(session, Track, "slug", tracks)
    await _upsert(session, Lesson, "slug", lessons)
    moved_questions = await _upsert(session, Question, "id", questions)
    current = await _rows(session, Exercise, "id")
    before = {ident: regrade.exercise_fingerprint(row) for ident, row in current.items()}
    moved_exercises = await _upsert(session, Exercise, "id", exercises, current)
    await item_progress.follow_lessons(
        session=session, questions=moved_questions, exercises=moved_exercises
    )
    await _regrade_changed(session, before, exercises)


async def _regrade_changed(
    session: AsyncSession, before: dict[str, str], exercises: dict[str, dict[str, Any]]
) -> None:
    """A pending regrade (never applied here: a teacher previews and applies it) of each
    exercise whose grading changed and that has graded submissions."""
    for ident, values in exercises.items():
        if ident not in before or regrade.fingerprint(values) == before[ident]:
            continue
        if await regrade.has_graded_submissions(session=session, exercise_id=ident):
            exercise = await session.get_one(Exercise, ident)
            await regrade.request_regrade(
                session=session, exercise=exercise, requested_by=None, reason=regrade.SYNC_REASON
            )
