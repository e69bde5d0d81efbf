"""A regrade: an exercise's stored submissions graded again against a newer version of it,
kept apart (regrade_results) until a teacher applies it (app/submissions/regrade.py)."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.models.base import Base, state_column_type, utcnow
from app.models.states import SubmissionStatus, Verdict


class RegradeStatus(StrEnum):
    """`pending` (made, nothing graded yet), `running`, `ready` (every submission graded
    again: the preview is whole), then `applied` or `discarded` (both final)."""

    PENDING = "pending"
    RUNNING = "running"
    READY = "ready"
    APPLIED = "applied"
    DISCARDED = "discarded"


class Regrade(Base):
    __tablename__ = "regrades"
    __table_args__ = (Index("ix_regrades_exercise_status", "exercise_id", "status"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    exercise_id: Mapped[str] = mapped_column(ForeignKey("exercises.id"))
    # NULL: made by a content sync that changed what grading compares.
    requested_by: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), default=None
    )
    reason: Mapped[str] = mapped_column(String(200))
    # The exercise's grading fingerprint when this was made: applying refuses another.
    fingerprint: Mapped[str] = mapped_column(String(64))
    status: Mapped[RegradeStatus] = mapped_column(
        state_column_type(RegradeStatus, 16), default=RegradeStatus.PENDING
    )
    total: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    ready_at: Mapped[datetime | None] = mapped_column(default=None)
    applied_at: Mapped[datetime | None] = mapped_column(default=None)
    applied_by: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), default=None
    )


class RegradeResult(Base):
    """One stored submission graded again: its old outcome beside the new one."""

    __tablename__ = "regrade_results"
    __table_args__ = (
        UniqueConstraint("regrade_id", "submission_id"),
        Index("ix_regrade_results_regrade_graded", "regrade_id", "graded_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    regrade_id: Mapped[int] = mapped_column(ForeignKey("regrades.id", ondelete="CASCADE"))
    submission_id: Mapped[int] = mapped_column(
        ForeignKey("submissions.id", ondelete="CASCADE"), index=True
    )
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    old_verdict: Mapped[Verdict | None] = mapped_column(state_column_type(Verdict, 32))
    # NULL until graded again; `error` when the platform failed twice (never applied).
    new_status: Mapped[SubmissionStatus | None] = mapped_column(
        state_column_type(SubmissionStatus, 16), default=None
    )
    new_verdict: Mapped[Verdict | None] = mapped_column(
        state_column_type(Verdict, 32), default=None
    )
    new_detail: Mapped[str | None] = mapped_column(Text, default=None)
    runs: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON, default=None)
    graded_at: Mapped[datetime | None] = mapped_column(default=None)
