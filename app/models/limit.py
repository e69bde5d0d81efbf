"""Counts of what the platform limits per subject (sign-ups per address, join-code guesses,
answers per user), one row per subject and fixed window: app/limits.py."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from app.models.base import Base


class RateCount(Base):
    __tablename__ = "rate_counts"

    # "<limit>:<subject>", e.g. "signup:203.0.113.7" or "answer:42".
    key: Mapped[str] = mapped_column(String(128), primary_key=True)
    window_start: Mapped[datetime] = mapped_column(primary_key=True)
    ends_at: Mapped[datetime] = mapped_column(index=True)  # swept some time after
    hits: Mapped[int]
