"""An answer given while logged out survives the trip to log in (or sign up) and back.

With JavaScript the page keeps it in the browser (frontend/pending.js). Without, the plain
form arrives here: the answer is kept on the server under an unguessable token, and the
way back from log-in carries only that token (`/lessons/<slug>?pending=<token>#q-<id>`,
short whatever the answer's length; never in a cookie). The lesson page fills the question
in again from it until the student answers that question. Nobody's answer until then, it
says nothing of anyone; it is swept after a day."""

from __future__ import annotations

import secrets
from datetime import timedelta
from urllib.parse import urlencode

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Question, QuestionAttempt, utcnow
from app.models.attempt import PendingAnswer

KEPT_FOR = timedelta(days=1)
TOKEN_MAX = 64


async def keep(*, session: AsyncSession, question: Question, answer: object) -> str:
    """Keep `answer` (in the API's shape) to `question`; the address to come back to."""
    await session.execute(
        delete(PendingAnswer).where(PendingAnswer.created_at < utcnow() - KEPT_FOR)
    )
    token = secrets.token_urlsafe(32)
    session.add(PendingAnswer(token=token, question_id=question.id, answer=answer))
    await session.flush()
    return f"/lessons/{question.lesson_slug}?{urlencode({'pending': token})}#q-{question.id}"


async def take(
    *, session: AsyncSession, token: str, lesson_slug: str, user_id: int | None
) -> PendingAnswer | None:
    """The answer kept under `token` for a question of this lesson, while it is kept and
    the student (`user_id`, once logged in) has not answered that question since: a reload
    after checking it shows their answer, not this one again. Reading only (a page view
    writes nothing); the sweep in `keep` forgets it."""
    if not token or len(token) > TOKEN_MAX:
        return None
    kept = await session.scalar(
        select(PendingAnswer)
        .join(Question, Question.id == PendingAnswer.question_id)
        .where(PendingAnswer.token == token, Question.lesson_slug == lesson_slug)
        .where(PendingAnswer.created_at >= utcnow() - KEPT_FOR)
    )
    if kept is None or user_id is None:
        return kept
    answered_since = await session.scalar(
        select(QuestionAttempt.id).where(
            QuestionAttempt.user_id == user_id,
            QuestionAttempt.question_id == kept.question_id,
            QuestionAttempt.created_at >= kept.created_at,
        )
    )
    return None if answered_since is not None else kept
