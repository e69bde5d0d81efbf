"""The plain HTML form that submits code from the lesson page (works without JavaScript)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, BackgroundTasks, Form, HTTPException, Request, status
from fastapi.responses import RedirectResponse, Response

from app.auth.dependencies import OptionalUser
from app.db import SessionDep
from app.lessons.catalog import live_exercise
from app.lessons.lesson_page import RefusedSubmission, render_lesson
from app.models import SubmissionMode, User
from app.submissions import service
from app.submissions.router import accept_submission
from app.web.login import to_login

router = APIRouter(include_in_schema=False)


async def _form_submission(
    *,
    exercise_id: str,
    request: Request,
    background: BackgroundTasks,
    session: SessionDep,
    user: User | None,
    code: str,
    mode: SubmissionMode,
) -> Response:
    exercise = await live_exercise(session=session, exercise_id=exercise_id)
    if exercise is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, "Exercise not found.")
    lesson_url = f"/lessons/{exercise.lesson_slug}"
    if user is None:
        return to_login(lesson_url)
    try:
        await accept_submission(
            request=request,
            session=session,
            background=background,
            user_id=user.id,
            exercise_id=exercise_id,
            code=code,
            mode=mode,
        )
    except HTTPException as exc:
        if exc.status_code == status.HTTP_404_NOT_FOUND:
            raise
        # The page again, at once, with the student's code in its editor and the reason: the
        # code never rides in the session cookie (browsers drop cookies over ~4 KB).
        refused = RefusedSubmission(
            exercise_id=exercise_id,
            code=code,
            message=str(exc.detail),
            status_code=exc.status_code,
            headers=dict(exc.headers or {}),
        )
        return await render_lesson(
            request, session=session, user=user, slug=exercise.lesson_slug, refused=refused
        )
    return RedirectResponse(f"{lesson_url}#exercise-{exercise_id}", status.HTTP_303_SEE_OTHER)


@router.post("/exercises/{exercise_id}/submissions")
async def submit_form(
    exercise_id: str,
    request: Request,
    background: BackgroundTasks,
    session: SessionDep,
    user: OptionalUser,
    code: Annotated[str, Form(max_length=200_000)] = "",
) -> Response:
    return await _form_submission(
        exercise_id=exercise_id,
        request=request,
        background=background,
        session=session,
        user=user,
        code=code,
        mode=SubmissionMode.GRADE,
    )


@router.post("/exercises/{exercise_id}/runs")
async def run_form(
    exercise_id: str,
    request: Request,
    background: BackgroundTasks,
    session: SessionDep,
    user: OptionalUser,
    code: Annotated[str, Form(max_length=200_000)] = "",
) -> Response:
    return await _form_submission(
        exercise_id=exercise_id,
        request=request,
        background=background,
        session=session,
        user=user,
        code=code,
        mode=SubmissionMode.RUN,
    )


@router.post("/exercises/{exercise_id}/give-up")
async def give_up_form(
    exercise_id: str, request: Request, session: SessionDep, user: OptionalUser
) -> Response:
    exercise = await live_exercise(session=session, exercise_id=exercise_id)
    if exercise is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, "Exercise not found.")
    lesson_url = f"/lessons/{exercise.lesson_slug}"
    if user is None:
        return to_login(lesson_url)
    await service.give_up(session=session, user_id=user.id, exercise_id=exercise_id)
    return RedirectResponse(f"{lesson_url}#exercise-{exercise_id}", status.HTTP_303_SEE_OTHER)
