from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from app.models.base import Base, state_column_type, utcnow
from app.models.states import RevealReason, SubmissionMode, SubmissionStatus, Verdict


class Submission(Base):
    """Code a student sent for an exercise. This row is the source of truth for its grading:
    status, attempts and the lease a grader holds while it runs."""

    __tablename__ = "submissions"
    __table_args__ = (
        Index("ix_submissions_user_exercise", "user_id", "exercise_id", "created_at"),
        Index("ix_submissions_status", "status"),
        Index("ix_submissions_user_status", "user_id", "status"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    exercise_id: Mapped[str] = mapped_column(ForeignKey("exercises.id"), index=True)
    code: Mapped[str] = mapped_column(Text)
    mode: Mapped[SubmissionMode] = mapped_column(
        state_column_type(SubmissionMode, 8), default=SubmissionMode.GRADE
    )
    status: Mapped[SubmissionStatus] = mapped_column(
        state_column_type(SubmissionStatus, 16), default=SubmissionStatus.QUEUED
    )
    verdict: Mapped[Verdict | None] = mapped_column(state_column_type(Verdict, 32), default=None)
    # The devices this submission is graded on, fixed when it is made.
    devices: Mapped[list[str]] = mapped_column(JSON, default=list)
    # The finished runs, copied here from SubmissionRun once every device has one.
    runs: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    # Set once this is an older attempt, neither the latest nor the best: its runs' stdout,
    # stderr and diff were cut to their first and last KiB, for good (those that were
    # longer; see app/submissions/storage.py).
    output_compacted: Mapped[bool] = mapped_column(Boolean, default=False, server_default="0")
    detail: Mapped[str | None] = mapped_column(Text, default=None)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    lease_expires_at: Mapped[datetime | None] = mapped_column(default=None)
    # When it was handed to the graders; NULL while it waits behind the student's own
    # earlier submissions (fair dispatch: app/grading/fairness.py).
    dispatched_at: Mapped[datetime | None] = mapped_column(default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(default=None)
    finished_at: Mapped[datetime | None] = mapped_column(default=None)

    @property
    def unfinished(self) -> bool:
        """Still queued or running (templates ask this: they cannot see the enum)."""
        return self.status in SubmissionStatus.UNFINISHED


class SubmissionRun(Base):
    """One device's run of a submission. Unique per device, so a duplicate delivery of the
    same result inserts nothing: recording is idempotent by construction. Once the
    submission is finished its runs live in `Submission.runs`; the copy here keeps no
    output (the row stays, as the guard against duplicates)."""

    __tablename__ = "submission_runs"
    # One live run per device; a regrade's runs sit beside them (`regrade_id`).
    __table_args__ = (
        Index(
            "uq_submission_runs_live",
            "submission_id",
            "device",
            unique=True,
            sqlite_where=text("regrade_id IS NULL"),
            postgresql_where=text("regrade_id IS NULL"),
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    submission_id: Mapped[int] = mapped_column(ForeignKey("submissions.id", ondelete="CASCADE"))
    device: Mapped[str] = mapped_column(String(16))
    run: Mapped[dict[str, Any]] = mapped_column(JSON)
    # Set on the runs an applied regrade recorded (the submission's older runs stay).
    regrade_id: Mapped[int | None] = mapped_column(ForeignKey("regrades.id"), default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class SolutionReveal(Base):
    """A student was shown an exercise's sample solution: after passing, or giving up."""

    __tablename__ = "solution_reveals"
    __table_args__ = (UniqueConstraint("user_id", "exercise_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    exercise_id: Mapped[str] = mapped_column(ForeignKey("exercises.id"), index=True)
    reason: Mapped[RevealReason] = mapped_column(state_column_type(RevealReason, 16))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
