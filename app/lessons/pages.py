from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated

from fastapi import APIRouter, Path, Request, status
from fastapi.responses import RedirectResponse, Response

from app.auth.dependencies import OptionalUser
from app.classes.home import home_section
from app.db import SessionDep
from app.errors import not_found
from app.lessons import hints, progress, service
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
    typed_answers: dict[str, object] | None = None,
) -> Response:
    """The lesson page; `refused`: a form submission the platform did not take, shown again
    in its editor with the reason (answered at once, so the code never travels in a cookie).
    `typed_answers`: question id -> an answer not taken, shown again as it was typed."""
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
    language = request.state.language
    context = {
        "detail": detail,
        "questions": await question_views(
            session=session,
            user_id=user.id if user else None,
            questions=detail.questions,
            typed=typed_answers,
            language=language,
        ),
        "prerequisites": await service.lessons_by_slug(
            session=session, slugs=detail.lesson.prerequisites
        ),
        "next_lessons": await service.lessons_building_on(session=session, slug=slug),
        "history": history,
        # exercise id -> the sample solution, once passed or given up
        "solution": {
            exercise.id: exercise.in_language("solution_code", language)
            for exercise in detail.exercises
            if exercise.id in revealed_ids
        },
        # exercise id -> its hints for this student (exercises with hints only)
        "hints": await hints.lesson_hints(
            session=session, user_id=user.id, exercises=detail.exercises, language=language
        )
        if user
        else {},
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


@router.post("/exercises/{exercise_id}/hints/{number}/open")
async def open_hint_form(
    exercise_id: str,
    number: Annotated[int, Path(ge=1, le=1000)],
    request: Request,
    session: SessionDep,
    user: OptionalUser,
) -> Response:
    """The lesson page's "Show hint" button; back to the exercise's hints."""
    exercise = await service.get_exercise(session=session, exercise_id=exercise_id)
    if exercise is None:
        raise not_found("Exercise")
    lesson_url = f"/lessons/{exercise.lesson_slug}"
    if user is None:
        return RedirectResponse(f"/login?next={lesson_url}", status.HTTP_303_SEE_OTHER)
    try:
        await hints.open_hint(
            session=session,
            user_id=user.id,
            exercise=exercise,
            number=number,
            language=request.state.language,
        )
    except LookupError:
        raise not_found("Hint") from None
    except hints.HintLocked:
        pass  # a page older than the rule: the page drawn again shows where it stands
    return RedirectResponse(f"{lesson_url}#hints-{exercise_id}-{number}", status.HTTP_303_SEE_OTHER)
