"""A later due date for one student on one assignment, set by the class's teacher.

Tied to the assignment row: removing the assignment removes its extensions, and each
student has at most one extension per assignment (setting it again moves it)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.models.base import Base, utcnow


class DueExtension(Base):
    __tablename__ = "due_extensions"
    __table_args__ = (UniqueConstraint("assignment_id", "student_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    assignment_id: Mapped[int] = mapped_column(
        ForeignKey("class_assignments.id", ondelete="CASCADE")
    )
    student_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    due_at: Mapped[datetime]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
