"""Answering a question from a plain HTML form (the page works without JavaScript)."""

from __future__ import annotations

from fastapi import APIRouter, Request, status
from fastapi.responses import RedirectResponse, Response

from app.auth.dependencies import OptionalUser
from app.db import SessionDep
from app.errors import not_found
from app.quizzes import service
from app.quizzes.kinds import InvalidAnswer, kind_of

router = APIRouter(include_in_schema=False)


@router.post("/lessons/{slug}/questions/{question_id}")
async def answer_form(
    slug: str, question_id: str, request: Request, session: SessionDep, user: OptionalUser
) -> Response:
    anchor = f"/lessons/{slug}#q-{question_id}"
    if user is None:
        return RedirectResponse(f"/login?next=/lessons/{slug}", status.HTTP_303_SEE_OTHER)
    question = await service.get_question(session=session, question_id=question_id)
    if question is None or question.lesson_slug != slug:
        raise not_found("Question")
    form = await request.form()
    try:
        answer = kind_of(question.kind).answer_from_form(
            question.in_language("public", request.state.language), form
        )
        await service.answer_question(
            session=session,
            user_id=user.id,
            question=question,
            answer=answer,
            language=request.state.language,
        )
    except InvalidAnswer as exc:
        request.session["flash"] = {"question": question_id, "message": str(exc)}
    return RedirectResponse(anchor, status.HTTP_303_SEE_OTHER)
