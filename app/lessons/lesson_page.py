"""The lesson page as a whole (body, questions, exercises, the student's history): drawn by
this domain's route and, with a refused answer or submission shown again, by the forms of the
quizzes and submissions domains (so they import this module, never another domain's pages)."""

from __future__ import annotations

from dataclasses import dataclass, field

from fastapi import Request
from fastapi.responses import Response

from app.classes.comments import comments_on
from app.classes.output_hints import hints_for
from app.db import SessionDep
from app.errors import not_found
from app.lessons import hints, service
from app.models import User
from app.quizzes.feedback import question_views
from app.submissions.history import devices_graded_now, recent_by_exercise
from app.submissions.service import revealed
from app.web.templating import render


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
        # submission id -> its teachers' comments, shown beside that attempt
        "comments": await comments_on(
            session=session, submission_ids=[s.id for rows in history.values() for s in rows]
        ),
        # submission id -> the hints of its classes' teachers on its wrong output's group
        "output_hints": await hints_for(
            session=session, submissions=[s for rows in history.values() for s in rows]
        ),
        "devices_now": await devices_graded_now(getattr(request.app.state, "grading", None)),
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
