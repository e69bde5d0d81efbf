from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Request, status
from fastapi.responses import RedirectResponse, Response

from app.auth.dependencies import OptionalUser
from app.classes.home import home_section
from app.db import SessionDep
from app.errors import not_found
from app.i18n import N_
from app.lessons import hints, progress, service
from app.lessons.catalog import live_exercise
from app.lessons.lesson_page import render_lesson
from app.quizzes import pending as pending_answers
from app.web.flash import flash
from app.web.login import LoginRequired
from app.web.templating import render

router = APIRouter(include_in_schema=False)
# The same words as frontend/pending.js says with JavaScript (app/i18n.py's answer_restored).
RESTORED = N_("Your answer from before you logged in is back. Press Check.")


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
        # A signed-in student's progress has the lengths (questions and exercises) in it.
        "lengths": {} if user else await service.lesson_lengths(session=session),
        "progress": by_lesson,
        # Prerequisites are named by their titles, in the page's language.
        "by_slug": {lesson.slug: lesson for item in tracks for lesson in item.lessons},
        "class_home": await home_section(session=session, user=user),
    }
    return render(request, "lessons/catalog.html", context)


@router.get("/lessons/{slug}")
async def lesson_page(
    slug: str, request: Request, session: SessionDep, user: OptionalUser, pending: str = ""
) -> Response:
    """`pending`: the token of an answer given logged out (app/quizzes/pending.py), filled
    in again."""
    kept = await pending_answers.take(
        session=session, token=pending, lesson_slug=slug, user_id=user.id if user else None
    )
    if kept is None:
        return await render_lesson(request, session=session, user=user, slug=slug)
    # Said in the question (the page takes it out of the session as it is drawn).
    flash(request, RESTORED, kind="note", about=kept.question_id)
    typed = {kept.question_id: kept.answer}
    return await render_lesson(request, session=session, user=user, slug=slug, typed_answers=typed)


@router.post("/exercises/{exercise_id}/hints/{number}/open")
async def open_hint_form(
    exercise_id: str,
    number: Annotated[int, Path(ge=1, le=1000)],
    request: Request,
    session: SessionDep,
    user: OptionalUser,
) -> Response:
    """The lesson page's "Show hint" button; back to the exercise's hints."""
    exercise = await live_exercise(session=session, exercise_id=exercise_id)
    if exercise is None:
        raise not_found("Exercise")
    lesson_url = f"/lessons/{exercise.lesson_slug}"
    if user is None:
        raise LoginRequired(lesson_url)
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
