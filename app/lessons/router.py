from __future__ import annotations

from fastapi import APIRouter

from app.auth.dependencies import CurrentUser
from app.db import SessionDep
from app.errors import not_found
from app.lessons import progress, service
from app.lessons.schemas import (
    ExerciseOut,
    LessonOut,
    LessonRef,
    ProgressOut,
    QuestionOut,
    TrackOut,
)
from app.models import Question
from app.quizzes.kinds import kind_of

router = APIRouter(tags=["catalog"])


def question_out(question: Question) -> QuestionOut:
    return kind_of(question.kind).out(
        id=question.id, prompt_html=question.prompt_html, public=question.public
    )


@router.get("/api/tracks")
async def tracks(session: SessionDep) -> list[TrackOut]:
    return [
        TrackOut(
            slug=item.track.slug,
            title=item.track.title,
            level=item.track.level,
            lessons=[LessonRef(slug=lesson.slug, title=lesson.title) for lesson in item.lessons],
        )
        for item in await service.list_tracks(session=session)
    ]


@router.get("/api/lessons/{slug}")
async def lesson(slug: str, session: SessionDep) -> LessonOut:
    detail = await service.get_lesson(session=session, slug=slug)
    if detail is None:
        raise not_found("Lesson")
    lesson = detail.lesson
    return LessonOut(
        slug=lesson.slug,
        title=lesson.title,
        level=lesson.level,
        track=detail.track.slug,
        summary=lesson.summary,
        prerequisites=lesson.prerequisites,
        body_html=lesson.body_html,
        exercises=[ExerciseOut.model_validate(e, from_attributes=True) for e in detail.exercises],
        questions=[question_out(q) for q in detail.questions],
    )


@router.get("/api/me/progress")
async def my_progress(user: CurrentUser, session: SessionDep) -> ProgressOut:
    return ProgressOut(lessons=await progress.lesson_progress(session=session, user_id=user.id))
