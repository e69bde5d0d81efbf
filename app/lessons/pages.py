from __future__ import annotations

from dataclasses import dataclass, field

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.auth.dependencies import OptionalUser
from app.classes.home import home_section
from app.db import SessionDep
from app.errors import not_found
from app.lessons import progress, service
from app.models import User
from app.quizzes.feedback import question_views
from app.submissions.history import recent_by_exercise
from app.submissions.service import revealed
from app.templating import render

router = APIRouter(include_in_schema=False)


@router.get("/")
async def catalog(request: Request, session: SessionDep, user: OptionalUser) -> Response:
    tracks = await service.list_tracks(session=session)
    by_lesson = (
        {p.slug: p for p in await progress.lesson_progress(session=session, user_id=user.id)}
        if user
        else {}
    )
    context = {
        "tracks": tracks,
        "progress": by_lesson,
        "class_home": await home_section(session=session, user=user),
    }
    return render(request, "lessons/catalog.html", context)


@router.get("/lessons/{slug}")
async def lesson_page(
    slug: str, request: Request, session: SessionDep, user: OptionalUser
) -> Response:
    return await render_lesson(request, session=session, user=user, slug=slug)


async def render_lesson(
    request: Request,
    *,
    session: SessionDep,
    user: User | None,
    slug: str,
    refused: RefusedSubmission | None = None,
) -> Response:
    """The lesson page; `refused`: a form submission the platform did not take, shown again
    in its editor with the reason (answered at once, so the code never travels in a cookie)."""
    detail = await service.get_lesson(session=session, slug=slug)
    if detail is None:
        raise not_found("Lesson")
    history = (
        await recent_by_exercise(
            session=session, user_id=user.id, exercise_ids=[e.id for e in detail.exercises]
        )
        if user
        else {}
    )
    revealed_ids = (
        await revealed(
            session=session, user_id=user.id, exercise_ids=[e.id for e in detail.exercises]
        )
        if user
        else {}
    )
    context = {
        "detail": detail,
        "questions": await question_views(
            session=session, user_id=user.id if user else None, questions=detail.questions
        ),
        "prerequisites": await service.lessons_by_slug(
            session=session, slugs=detail.lesson.prerequisites
        ),
        "next_lessons": await service.lessons_building_on(session=session, slug=slug),
        "history": history,
        # exercise id -> the sample solution, once passed or given up
        "solution": {
            exercise.id: exercise.solution_code
            for exercise in detail.exercises
            if exercise.id in revealed_ids
        },
        "pending": any(s.unfinished for rows in history.values() for s in rows),
        "refused": refused,
    }
    if refused is None:
        return render(request, "lessons/lesson.html", context)
    response = render(request, "lessons/lesson.html", context, status_code=refused.status_code)
    response.headers.update(refused.headers)
    return response


@dataclass(frozen=True)
class RefusedSubmission:
    exercise_id: str
    code: str
    message: str
    status_code: int
    headers: dict[str, str] = field(default_factory=dict)
