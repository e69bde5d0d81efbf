"""Answering a question from a plain HTML form (the page works without JavaScript)."""

from __future__ import annotations

from urllib.parse import urlencode

from fastapi import APIRouter, Request, status
from fastapi.responses import RedirectResponse, Response
from starlette.datastructures import FormData

from app import limits
from app.auth.arrival import WHY_ANSWER
from app.auth.dependencies import OptionalUser, client_address
from app.db import SessionDep
from app.errors import not_found
from app.i18n import gettext
from app.lessons import catalog
from app.lessons.lesson_page import render_lesson
from app.models import Question
from app.quizzes import pending, service
from app.quizzes.kinds import InvalidAnswer, kind_of
from app.web.flash import flash
from app.web.login import LoginRequired

router = APIRouter(include_in_schema=False)


@router.post("/lessons/{slug}/questions/{question_id}")
async def answer_form(
    slug: str, question_id: str, request: Request, session: SessionDep, user: OptionalUser
) -> Response:
    anchor = f"/lessons/{slug}#q-{question_id}"
    question = await catalog.live_question(session=session, question_id=question_id)
    if question is None or question.lesson_slug != slug:
        raise not_found("Question")
    form = await request.form()
    if user is None:
        return await _log_in_keeping(request, session, question, form)
    try:
        answer = kind_of(question.kind).answer_from_form(
            question.in_language("public", request.state.language), form
        )
        await limits.take(
            session=session, limit=limits.answers(request.app.state.settings), subject=user.id
        )
        await service.answer_question(
            session=session,
            user_id=user.id,
            question=question,
            answer=answer,
            language=request.state.language,
        )
    except InvalidAnswer as exc:
        flash(request, exc.translated(), kind="error", about=question_id)
    except limits.LimitReached as exc:
        # The page at once (429), the answer as it was typed, and when to try again: the
        # page takes the message out of the session as it is drawn.
        message = gettext(exc.limit.message) % {"seconds": exc.retry_after_s}
        flash(request, message, kind="error", about=question_id)
        refused = await render_lesson(
            request, session=session, user=user, slug=slug, typed_answers={question_id: answer}
        )
        refused.status_code = status.HTTP_429_TOO_MANY_REQUESTS
        refused.headers["Retry-After"] = str(exc.retry_after_s)
        return refused
    return RedirectResponse(anchor, status.HTTP_303_SEE_OTHER)


async def _log_in_keeping(
    request: Request, session: SessionDep, question: Question, form: FormData
) -> Response:
    """Logged out, without JavaScript: to log in (which offers signing up), saying why, and
    back to the question with the answer filled in again (app/quizzes/pending.py). An
    answer that could not be taken anyway (a part left empty) is not kept."""
    back = f"/lessons/{question.lesson_slug}#q-{question.id}"
    try:
        answer = kind_of(question.kind).answer_from_form(
            question.in_language("public", request.state.language), form
        )
        await limits.take(
            session=session,
            limit=limits.answers(request.app.state.settings),
            subject=f"address:{client_address(request)}",
        )
    except (InvalidAnswer, limits.LimitReached):
        return RedirectResponse(f"/login?{urlencode({'next': back})}", status.HTTP_303_SEE_OTHER)
    back = await pending.keep(session=session, question=question, answer=answer)
    query = urlencode({"next": back, "why": WHY_ANSWER})
    return RedirectResponse(f"/login?{query}", status.HTTP_303_SEE_OTHER)


@router.post("/lessons/{slug}/questions/{question_id}/reveal")
async def reveal_form(
    slug: str, question_id: str, request: Request, session: SessionDep, user: OptionalUser
) -> Response:
    """The "Show the answer" button (app/quizzes/reveal.py), then the question again."""
    if user is None:
        raise LoginRequired(f"/lessons/{slug}")
    question = await catalog.live_question(session=session, question_id=question_id)
    if question is None or question.lesson_slug != slug:
        raise not_found("Question")
    try:
        await service.reveal_answer(
            session=session, user_id=user.id, question=question, language=request.state.language
        )
    except service.NothingAnswered:
        message = gettext("Answer the question before asking for its answer.")
        flash(request, message, kind="error", about=question_id)
    return RedirectResponse(f"/lessons/{slug}#q-{question_id}", status.HTTP_303_SEE_OTHER)
