"""What the lesson page shows under each exercise: the student's recent submissions."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Submission


async def recent_by_exercise(
    *, session: AsyncSession, user_id: int, exercise_ids: list[str], per_exercise: int = 10
) -> dict[str, list[Submission]]:
    rows = await session.scalars(
        select(Submission)
        .where(Submission.user_id == user_id, Submission.exercise_id.in_(exercise_ids))
        .order_by(Submission.id.desc())
    )
    history: dict[str, list[Submission]] = {ident: [] for ident in exercise_ids}
    for row in rows:
        if len(history[row.exercise_id]) < per_exercise:
            history[row.exercise_id].append(row)
    return history
