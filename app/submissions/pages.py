"""The plain HTML form that submits code from the lesson page (works without JavaScript)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import APIRouter, BackgroundTasks, Form, HTTPException, Request, status
from fastapi.responses import Response

from app.auth.dependencies import OptionalUser
from app.db import SessionDep
from app.lessons.catalog import live_exercise
from app.lessons.lesson_page import RefusedSubmission, render_lesson
from app.models import Exercise, SubmissionMode, User
from app.submissions import service
from app.submissions.router import accept_submission
from app.web.login import LoginRequired
from app.web.redirects import see_other

router = APIRouter(include_in_schema=False)


async def _posted_to(
    *, session: SessionDep, exercise_id: str, user: User | None
) -> tuple[Exercise, User]:
    """The live exercise a form is posted to (else 404), and the student who posted it (else
    log in first, and back to the exercise's lesson)."""
    exercise = await live_exercise(session=session, exercise_id=exercise_id)
    if exercise is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, "Exercise not found.")
    if user is None:
        raise LoginRequired(f"/lessons/{exercise.lesson_slug}")
    return exercise, user


def _back_to(exercise: Exercise) -> Response:
    """Back to the exercise on its lesson's page once its form is handled."""
    return see_other(f"/lessons/{exercise.lesson_slug}#exercise-{exercise.id}")


def _form_endpoint(mode: SubmissionMode) -> Callable[..., Awaitable[Response]]:
    """The form's endpoint for one mode: grading (Submit) and trying out (Run) differ in
    nothing else."""

    async def endpoint(
        exercise_id: str,
        request: Request,
        background: BackgroundTasks,
        session: SessionDep,
        user: OptionalUser,
        code: Annotated[str, Form(max_length=200_000)] = "",
    ) -> Response:
        exercise, student = await _posted_to(session=session, exercise_id=exercise_id, user=user)
        try:
            await accept_submission(
                request=request,
                session=session,
                background=background,
                user_id=student.id,
                exercise_id=exercise_id,
                code=code,
                mode=mode,
            )
        except HTTPException as exc:
            if exc.status_code == status.HTTP_404_NOT_FOUND:
                raise
            # The page again, at once, with the student's code in its editor and the reason:
            # the code never rides in the session cookie (browsers drop cookies over ~4 KB).
            refused = RefusedSubmission(
                exercise_id=exercise_id,
                code=code,
                message=str(exc.detail),
                status_code=exc.status_code,
                headers=dict(exc.headers or {}),
            )
            return await render_lesson(
                request, session=session, user=student, slug=exercise.lesson_slug, refused=refused
            )
        return _back_to(exercise)

    return endpoint


submit_form = router.post("/exercises/{exercise_id}/submissions", name="submit_form")(
    _form_endpoint(SubmissionMode.GRADE)
)
run_form = router.post("/exercises/{exercise_id}/runs", name="run_form")(
    _form_endpoint(SubmissionMode.RUN)
)


@router.post("/exercises/{exercise_id}/give-up")
async def give_up_form(
    exercise_id: str, request: Request, session: SessionDep, user: OptionalUser
) -> Response:
    exercise, student = await _posted_to(session=session, exercise_id=exercise_id, user=user)
    await service.give_up(session=session, user_id=student.id, exercise_id=exercise_id)
    return _back_to(exercise)
