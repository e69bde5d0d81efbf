"""A teacher's hint on one wrong-output cluster of one exercise, for their class: every
submission of a student in that class whose output falls in the cluster shows it beside the
diff (app/classes/output_hints.py; clusters: app/classes/clusters.py).

The hint outlives its teacher's account (teacher_id set to null) and goes with the class."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.models.base import Base, utcnow

TEXT_MAX = 2000
SAMPLE_MAX = 400  # the start of the cluster's output, for the teacher's list of hints


class OutputHint(Base):
    __tablename__ = "output_hints"
    __table_args__ = (UniqueConstraint("class_id", "exercise_id", "cluster"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    class_id: Mapped[int] = mapped_column(ForeignKey("classes.id", ondelete="CASCADE"))
    exercise_id: Mapped[str] = mapped_column(ForeignKey("exercises.id"), index=True)
    # The cluster's key (app/classes/clusters.py: a SHA-256 of the normalised output).
    cluster: Mapped[str] = mapped_column(String(64))
    sample_output: Mapped[str] = mapped_column(Text, default="")
    text: Mapped[str] = mapped_column(Text)
    teacher_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), index=True
    )
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
