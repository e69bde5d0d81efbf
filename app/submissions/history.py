"""What the lesson page shows under each exercise: the student's recent submissions."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Submission


async def recent_by_exercise(
    *, session: AsyncSession, user_id: int, exercise_ids: list[str], per_exercise: int = 10
) -> dict[str, list[Submission]]:
    """The newest `per_exercise` graded submissions and the newest `per_exercise` try-out
    runs of each exercise, together, newest first (the page lists the two apart, so that
    many try-outs never push the graded ones out): only those rows are read, however long
    the student's history (the rest is in the paged JSON list)."""
    rank = (
        func.row_number()
        .over(
            partition_by=(Submission.exercise_id, Submission.mode),
            order_by=Submission.id.desc(),
        )
        .label("rank")
    )
    ranked = (
        select(Submission.id, rank)
        .where(Submission.user_id == user_id, Submission.exercise_id.in_(exercise_ids))
        .subquery()
    )
    rows = await session.scalars(
        select(Submission)
        .join(ranked, ranked.c.id == Submission.id)
        .where(ranked.c.rank <= per_exercise)
        .order_by(Submission.id.desc())
    )
    history: dict[str, list[Submission]] = {ident: [] for ident in exercise_ids}
    for row in rows:
        history[row.exercise_id].append(row)
    return history
