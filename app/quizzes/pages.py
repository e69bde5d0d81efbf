"""Answering a question from a plain HTML form (the page works without JavaScript)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, status
from fastapi.responses import RedirectResponse, Response
from starlette.datastructures import FormData

from app.auth.dependencies import OptionalUser
from app.db import SessionDep
from app.errors import not_found
from app.models import Question
from app.quizzes import service
from app.quizzes.grading import InvalidAnswer

router = APIRouter(include_in_schema=False)


def answer_from_form(question: Question, form: FormData) -> Any:
    """Turn form fields into the API's answer shape; the checker validates it further."""
    if question.kind == "multiple_choice":
        picked = [v for v in form.getlist("answer") if isinstance(v, str)]
        try:
            indices = [int(v) for v in picked]
        except ValueError:
            raise InvalidAnswer("Pick one of the options.") from None
        if question.public["multiple"]:
            return indices
        if len(indices) != 1:
            raise InvalidAnswer("Pick one of the options.")
        return indices[0]
    if question.kind == "fill_in":
        return [v if isinstance(v, str) else "" for v in form.getlist("blank")]
    return {item["id"]: form.get(f"match-{item['id']}") or "" for item in question.public["left"]}


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
        answer = answer_from_form(question, form)
        await service.answer_question(
            session=session, user_id=user.id, question=question, answer=answer
        )
    except InvalidAnswer as exc:
        request.session["flash"] = {"question": question_id, "message": str(exc)}
    return RedirectResponse(anchor, status.HTTP_303_SEE_OTHER)
