from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Path, status

from app.auth.dependencies import CurrentUser
from app.db import SessionDep
from app.errors import not_found
from app.i18n import DEFAULT_LANGUAGE, current_language
from app.lessons import catalog, hints, progress, service
from app.lessons.schemas import (
    ExerciseOut,
    HintOut,
    HintsOut,
    LessonOut,
    LessonRef,
    ProgressOut,
    QuestionOut,
    TrackOut,
)
from app.models import Exercise, Question
from app.quizzes.kinds import kind_of

router = APIRouter(tags=["catalog"])


def question_out(question: Question, language: str = DEFAULT_LANGUAGE) -> QuestionOut:
    return kind_of(question.kind).out(
        id=question.id,
        prompt_html=question.in_language("prompt_html", language),
        public=question.in_language("public", language),
    )


def exercise_out(exercise: Exercise, language: str = DEFAULT_LANGUAGE) -> ExerciseOut:
    return ExerciseOut(
        id=exercise.id,
        title=exercise.in_language("title", language),
        prompt_html=exercise.in_language("prompt_html", language),
        starter_code=exercise.in_language("starter_code", language),
        expected_output=exercise.expected_output,
        devices=exercise.devices,
        setup=exercise.setup,
        hints=len(exercise.hints),
        hints_after=exercise.hints_after,
    )


@router.get("/api/tracks")
async def tracks(session: SessionDep) -> list[TrackOut]:
    """In the language of the request (`?lang=`, the `lang` cookie, Accept-Language)."""
    language = current_language()
    return [
        TrackOut(
            slug=item.track.slug,
            title=item.track.in_language("title", language),
            level=item.track.level,
            lessons=[
                LessonRef(slug=lesson.slug, title=lesson.in_language("title", language))
                for lesson in item.lessons
            ],
        )
        for item in await service.list_tracks(session=session)
    ]


@router.get("/api/lessons/{slug}")
async def lesson(slug: str, session: SessionDep) -> LessonOut:
    """In the language of the request; a text not translated into it is in English."""
    detail = await service.get_lesson(session=session, slug=slug)
    if detail is None:
        raise not_found("Lesson")
    lesson = detail.lesson
    language = current_language()
    return LessonOut(
        slug=lesson.slug,
        title=lesson.in_language("title", language),
        level=lesson.level,
        track=detail.track.slug,
        summary=lesson.in_language("summary", language),
        prerequisites=lesson.prerequisites,
        body_html=lesson.in_language("body_html", language),
        exercises=[exercise_out(e, language) for e in detail.exercises],
        questions=[question_out(q, language) for q in detail.questions],
    )


@router.get("/api/me/progress")
async def my_progress(user: CurrentUser, session: SessionDep) -> ProgressOut:
    return ProgressOut(lessons=await progress.lesson_progress(session=session, user_id=user.id))


@router.get("/api/exercises/{exercise_id}/hints", tags=["hints"])
async def exercise_hints(exercise_id: str, user: CurrentUser, session: SessionDep) -> HintsOut:
    """The exercise's hints for the caller: which are unlocked and opened; the text of the
    opened ones only."""
    exercise = await catalog.live_exercise(session=session, exercise_id=exercise_id)
    if exercise is None:
        raise not_found("Exercise")
    found = await hints.hints_of(
        session=session, user_id=user.id, exercise=exercise, language=current_language()
    )
    return HintsOut(
        wrong_submissions=found.wrong_submissions,
        hints_after=found.hints_after,
        hints=[HintOut.model_validate(hint) for hint in found.hints],
    )


@router.post(
    "/api/exercises/{exercise_id}/hints/{number}/open",
    tags=["hints"],
    responses={403: {"description": "Not unlocked yet"}},
)
async def open_hint(
    exercise_id: str,
    number: Annotated[int, Path(ge=1, le=1000)],
    user: CurrentUser,
    session: SessionDep,
) -> HintOut:
    """Open hint `number` (1 for the first) once it is unlocked: its text; recorded for
    the caller's teachers. Opening it again answers the same."""
    exercise = await catalog.live_exercise(session=session, exercise_id=exercise_id)
    if exercise is None:
        raise not_found("Exercise")
    try:
        hint = await hints.open_hint(
            session=session,
            user_id=user.id,
            exercise=exercise,
            number=number,
            language=current_language(),
        )
    except LookupError:
        raise not_found("Hint") from None
    except hints.HintLocked as exc:
        raise HTTPException(status.HTTP_403_FORBIDDEN, str(exc)) from None
    return HintOut.model_validate(hint)
