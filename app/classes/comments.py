"""Teachers' comments on submissions: written on the drill-down, read by the student beside
that attempt (lesson page and API). A teacher comments only on the submissions of a student
in one of their classes, on the lesson shown (the page checks the class and the student;
this checks that the submission is theirs and of that lesson)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.i18n import N_
from app.models import Comment, Exercise, Submission, User
from app.models.comment import TEXT_MAX

EMPTY = N_("Comment: write something for the student to read.")
TOO_LONG = N_("Comment: use at most %(max)s characters (this has %(length)s).")
NOT_HERE = N_("That attempt is not this student's work on this lesson.")


class CommentRefused(ValueError):
    """Why a comment was not saved: a message (N_) and its values."""

    def __init__(self, message: str, **values: object) -> None:
        super().__init__(message)
        self.values = values


@dataclass(frozen=True, slots=True)
class CommentView:
    id: int
    submission_id: int
    text: str
    created_at: datetime
    teacher: str | None  # the teacher's name; None once their account is gone


async def add_comment(
    *,
    session: AsyncSession,
    teacher_id: int,
    student_id: int,
    lesson_slug: str,
    submission_id: int,
    text: str,
) -> Comment:
    text = text.strip()
    if not text:
        raise CommentRefused(EMPTY)
    if len(text) > TEXT_MAX:
        raise CommentRefused(TOO_LONG, max=TEXT_MAX, length=len(text))
    found = await session.scalar(
        select(Submission.id)
        .join(Exercise, Exercise.id == Submission.exercise_id)
        .where(
            Submission.id == submission_id,
            Submission.user_id == student_id,
            Exercise.lesson_slug == lesson_slug,
        )
    )
    if found is None:
        raise CommentRefused(NOT_HERE)
    comment = Comment(teacher_id=teacher_id, submission_id=submission_id, text=text)
    session.add(comment)
    await session.flush()
    return comment


async def comments_on(
    *, session: AsyncSession, submission_ids: Iterable[int]
) -> dict[int, list[CommentView]]:
    """Submission id → its comments, oldest first (only submissions that have some)."""
    ids = list(submission_ids)
    if not ids:
        return {}
    rows = await session.execute(
        select(Comment, User.username)
        .outerjoin(User, User.id == Comment.teacher_id)
        .where(Comment.submission_id.in_(ids))
        .order_by(Comment.created_at, Comment.id)
    )
    found: dict[int, list[CommentView]] = {}
    for comment, teacher in rows:
        found.setdefault(comment.submission_id, []).append(
            CommentView(
                comment.id, comment.submission_id, comment.text, comment.created_at, teacher
            )
        )
    return found
