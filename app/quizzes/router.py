from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request, status
from fastapi.exceptions import RequestValidationError

from app import limits
from app.auth.dependencies import CurrentUser
from app.db import SessionDep
from app.errors import conflict, not_found, too_many
from app.i18n import current_language
from app.lessons import catalog
from app.quizzes import service
from app.quizzes.kinds import EmptyPart, InvalidAnswer
from app.quizzes.schemas import AnswerIn, AnswerResult

router = APIRouter(tags=["questions"])


@router.post(
    "/api/questions/{question_id}/answers",
    responses={429: {"description": "Too many answers in a minute"}},
)
async def answer(
    question_id: str, body: AnswerIn, request: Request, user: CurrentUser, session: SessionDep
) -> AnswerResult:
    try:
        # Counted in the unit of work that records the answer: atomic, and an answer
        # refused for its shape (422) is not counted.
        await limits.take(
            session=session, limit=limits.answers(request.app.state.settings), subject=user.id
        )
    except limits.LimitReached as exc:
        raise too_many(str(exc), exc.retry_after_s) from None
    question = await catalog.live_question(session=session, question_id=question_id)
    if question is None:
        raise not_found("Question")
    try:
        return await service.answer_question(
            session=session,
            user_id=user.id,
            question=question,
            answer=body.answer,
            language=current_language(),
        )
    except EmptyPart as exc:
        # As a validation error: a list naming the empty part of the body.
        where = ("body", "answer") + (() if exc.part is None else (exc.part,))
        raise RequestValidationError(
            [{"type": "missing", "loc": where, "msg": str(exc), "input": None}]
        ) from None
    except InvalidAnswer as exc:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, str(exc)) from None


@router.post(
    "/api/questions/{question_id}/reveal",
    responses={409: {"description": "The question has not been answered yet"}},
)
async def reveal(question_id: str, user: CurrentUser, session: SessionDep) -> AnswerResult:
    """Show the right answer of a question the caller has answered: the result of their
    last answer, revealed. Asking before the answer was shown otherwise is recorded."""
    question = await catalog.live_question(session=session, question_id=question_id)
    if question is None:
        raise not_found("Question")
    try:
        return await service.reveal_answer(
            session=session, user_id=user.id, question=question, language=current_language()
        )
    except service.NothingAnswered:
        raise conflict("Answer the question before asking for its answer.") from None
