from __future__ import annotations

from fastapi import APIRouter, HTTPException, status

from app.auth.dependencies import CurrentUser
from app.db import SessionDep
from app.errors import not_found
from app.i18n import current_language
from app.quizzes import service
from app.quizzes.kinds import InvalidAnswer
from app.quizzes.schemas import AnswerIn, AnswerResult

router = APIRouter(tags=["questions"])


@router.post("/api/questions/{question_id}/answers")
async def answer(
    question_id: str, body: AnswerIn, user: CurrentUser, session: SessionDep
) -> AnswerResult:
    question = await service.get_question(session=session, question_id=question_id)
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
    except InvalidAnswer as exc:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, str(exc)) from None
