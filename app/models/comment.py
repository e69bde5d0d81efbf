"""A teacher's comment on one submission, shown to the student beside that attempt (their
history on the lesson page and `comments` on the submission in the API).

The comment outlives its teacher's account (teacher_id set to null: the student keeps what
they were told) and goes with the submission."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.models.base import Base, utcnow

TEXT_MAX = 2000


class Comment(Base):
    __tablename__ = "submission_comments"

    id: Mapped[int] = mapped_column(primary_key=True)
    teacher_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), index=True
    )
    submission_id: Mapped[int] = mapped_column(
        ForeignKey("submissions.id", ondelete="CASCADE"), index=True
    )
    text: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
