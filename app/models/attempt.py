from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.models.base import Base, utcnow


class QuestionAttempt(Base):
    """One answer a student gave; every attempt is kept."""

    __tablename__ = "question_attempts"
    __table_args__ = (Index("ix_question_attempts_user_question", "user_id", "question_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    question_id: Mapped[str] = mapped_column(ForeignKey("questions.id"), index=True)
    answer: Mapped[Any] = mapped_column(JSON)
    correct: Mapped[bool] = mapped_column(Boolean)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class QuestionReveal(Base):
    """A student asked to be shown a question's right answer before they had answered it
    right or used its tries (app/quizzes/reveal.py); once per question."""

    __tablename__ = "question_reveals"
    __table_args__ = (UniqueConstraint("user_id", "question_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    question_id: Mapped[str] = mapped_column(ForeignKey("questions.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class PendingAnswer(Base):
    """An answer given on the lesson page while logged out, without JavaScript: kept under an
    unguessable token that the way back from log-in (or sign-up) carries, so the question
    comes back filled in (app/quizzes/pending.py). Taken once; swept after a day."""

    __tablename__ = "pending_answers"

    token: Mapped[str] = mapped_column(String(64), primary_key=True)
    question_id: Mapped[str] = mapped_column(ForeignKey("questions.id", ondelete="CASCADE"))
    answer: Mapped[Any] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)
