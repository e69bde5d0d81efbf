"""Tracks, lessons, questions and exercises: a copy of `exercises/`, synced at start-up.

Rows are keyed by the ids written in the content files, so edits keep progress; rows whose
file disappeared are marked retired rather than deleted, so their attempts stay.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, Boolean, ForeignKey, Integer, String, Text, text
from sqlalchemy.orm import Mapped, mapped_column

from app.models.base import Base


class Track(Base):
    __tablename__ = "tracks"

    slug: Mapped[str] = mapped_column(String(64), primary_key=True)
    title: Mapped[str] = mapped_column(String(200))
    level: Mapped[str] = mapped_column(String(32))
    position: Mapped[int] = mapped_column(Integer)
    retired: Mapped[bool] = mapped_column(Boolean, default=False)


class Lesson(Base):
    __tablename__ = "lessons"

    slug: Mapped[str] = mapped_column(String(64), primary_key=True)
    track_slug: Mapped[str] = mapped_column(ForeignKey("tracks.slug"), index=True)
    position: Mapped[int] = mapped_column(Integer)
    title: Mapped[str] = mapped_column(String(200))
    level: Mapped[str] = mapped_column(String(32))
    summary: Mapped[str] = mapped_column(Text)
    prerequisites: Mapped[list[str]] = mapped_column(JSON, default=list)
    body_html: Mapped[str] = mapped_column(Text)
    # Per-language renderings ({"tr": "<p>…"}), English lives in body_html.
    translations: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    retired: Mapped[bool] = mapped_column(Boolean, default=False)


class Question(Base):
    __tablename__ = "questions"

    id: Mapped[str] = mapped_column(String(80), primary_key=True)
    lesson_slug: Mapped[str] = mapped_column(ForeignKey("lessons.slug"), index=True)
    position: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(32))
    prompt_html: Mapped[str] = mapped_column(Text)
    # What the student may see (options, template, matching sides) ...
    public: Mapped[dict[str, Any]] = mapped_column(JSON)
    # ... and what they may not until they have answered.
    key: Mapped[dict[str, Any]] = mapped_column(JSON)
    explanation_html: Mapped[str] = mapped_column(Text)
    retired: Mapped[bool] = mapped_column(Boolean, default=False)


class Exercise(Base):
    __tablename__ = "exercises"

    id: Mapped[str] = mapped_column(String(80), primary_key=True)
    lesson_slug: Mapped[str] = mapped_column(ForeignKey("lessons.slug"), index=True)
    position: Mapped[int] = mapped_column(Integer)
    title: Mapped[str] = mapped_column(String(200))
    prompt_html: Mapped[str] = mapped_column(Text)
    starter_code: Mapped[str] = mapped_column(Text)
    solution_code: Mapped[str] = mapped_column(Text)
    expected_output: Mapped[str] = mapped_column(Text)
    devices: Mapped[list[str]] = mapped_column(JSON)
    comparison: Mapped[dict[str, Any]] = mapped_column(JSON)
    limits: Mapped[dict[str, Any]] = mapped_column(JSON)
    # Runs before the student's code in the visible example ("" for none).
    setup: Mapped[str] = mapped_column(Text, default="", server_default="")
    # Hidden checks, [{"name", "setup", "expected_output"}]: never shown to students.
    variants: Mapped[list[dict[str, Any]]] = mapped_column(
        JSON, default=list, server_default=text("'[]'")
    )
    retired: Mapped[bool] = mapped_column(Boolean, default=False)
