from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from app.models.base import Base

QUESTION = "question"
EXERCISE = "exercise"


class ItemProgress(Base):
    """One student's record on one question or exercise, kept as their work is recorded
    (app/item_progress.py), so a class's grid and insight read one row per student and item
    instead of every answer and graded submission. Derived data: `item_progress.rebuild`
    makes it again from question_attempts and submissions, which stay the truth.

    Counted as the grid counts (app/classes/reports/grid.py): a question's answers; an exercise's
    graded submissions (mode grade, status done). Retired items keep their rows: readers
    leave them out."""

    __tablename__ = "item_progress"
    __table_args__ = (
        # The grid: a class's students, some lessons.
        Index("ix_item_progress_user_lesson", "user_id", "lesson_slug"),
        # Insight: per item, who tried and in how many attempts they succeeded (covering).
        Index("ix_item_progress_item", "kind", "item_id", "user_id", "first_ok_n"),
    )

    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    # QUESTION or EXERCISE: the ids of questions and exercises are not one namespace.
    kind: Mapped[str] = mapped_column(String(8), primary_key=True)
    item_id: Mapped[str] = mapped_column(String(80), primary_key=True)
    # The item's lesson, copied so that the grid groups without joining the catalog; kept
    # when an item moves to another lesson (`item_progress.follow_lessons`, by the sync that
    # moves it).
    lesson_slug: Mapped[str] = mapped_column(String(64))
    attempts: Mapped[int] = mapped_column(Integer)
    last_at: Mapped[datetime]
    # The first right answer or passing submission (by time), and its number among the
    # student's attempts on the item (by id: the order they were recorded); NULL until then.
    first_ok_at: Mapped[datetime | None] = mapped_column(default=None)
    first_ok_n: Mapped[int | None] = mapped_column(Integer, default=None)
