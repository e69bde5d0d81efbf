"""Tracks, lessons, questions and exercises: a copy of `exercises/`, synced at start-up.

Rows are keyed by the ids written in the content files, so edits keep progress; rows whose
file disappeared are marked retired rather than deleted, so their attempts stay.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, ForeignKey, Integer, String, Text, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column

from app.models.base import Base, utcnow


class Synced:
    """A row of content synced from `exercises/`, with texts in other languages.
    `translations` maps a language to the row's translated columns, each under the column's
    name ({"tr": {"title": "…"}}); English is in the columns themselves. A row whose file
    is gone is `retired` rather than deleted (app/lessons/catalog.py reads the live ones)."""

    translations: Mapped[dict[str, Any]] = mapped_column(
        JSON, default=dict, server_default=text("'{}'")
    )
    retired: Mapped[bool] = mapped_column(Boolean, default=False)

    def in_language(self, name: str, language: str) -> Any:
        """The column `name` in `language`; in English where it has no translation."""
        return translated(self.translations, language, name, getattr(self, name))


def translated(translations: dict[str, Any] | None, language: str, name: str, english: Any) -> Any:
    """`Synced.in_language` for a query that selected columns rather than rows: the
    column `name` in `language` from the row's `translations`, else `english`."""
    words = (translations or {}).get(language) or {}
    return words.get(name, english)


class Track(Synced, Base):
    __tablename__ = "tracks"

    slug: Mapped[str] = mapped_column(String(64), primary_key=True)
    title: Mapped[str] = mapped_column(String(200))
    level: Mapped[str] = mapped_column(String(32))
    position: Mapped[int] = mapped_column(Integer)


class Lesson(Synced, Base):
    __tablename__ = "lessons"

    slug: Mapped[str] = mapped_column(String(64), primary_key=True)
    track_slug: Mapped[str] = mapped_column(ForeignKey("tracks.slug"), index=True)
    position: Mapped[int] = mapped_column(Integer)
    title: Mapped[str] = mapped_column(String(200))
    level: Mapped[str] = mapped_column(String(32))
    summary: Mapped[str] = mapped_column(Text)
    prerequisites: Mapped[list[str]] = mapped_column(JSON, default=list)
    body_html: Mapped[str] = mapped_column(Text)
    # Per language: title, summary, body_html (with its check-yourself questions). Made with
    # the table (migration 0001): without the server default the others have, which filled
    # rows that existed when migration 0009 added the column to their tables.
    translations: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)


class LessonItem:
    """A question or an exercise: an item of a lesson, at its place in it (`position`),
    keyed by the id written in its content file. Its tables have these columns first."""

    id: Mapped[str] = mapped_column(String(80), primary_key=True, sort_order=-1)
    lesson_slug: Mapped[str] = mapped_column(ForeignKey("lessons.slug"), index=True, sort_order=-1)
    position: Mapped[int] = mapped_column(Integer, sort_order=-1)


class Question(LessonItem, Synced, Base):
    __tablename__ = "questions"

    kind: Mapped[str] = mapped_column(String(32))
    prompt_html: Mapped[str] = mapped_column(Text)
    # What the student may see (options, template, matching sides) ...
    public: Mapped[dict[str, Any]] = mapped_column(JSON)
    # ... and what they may not until they have answered.
    key: Mapped[dict[str, Any]] = mapped_column(JSON)
    explanation_html: Mapped[str] = mapped_column(Text)
    # Wrong answers before the right answer is shown (app/quizzes/reveal.py).
    tries: Mapped[int] = mapped_column(Integer, default=2, server_default=text("2"))
    # `translations` (Synced), per language: prompt_html, explanation_html, public and key
    # (a translated template's blanks may accept other words; a matching question keeps its
    # item ids).


class Exercise(LessonItem, Synced, Base):
    __tablename__ = "exercises"

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
    # Progressive hints (rendered HTML), the first openable after `hints_after` wrong graded
    # submissions, each next one after as many more (app/lessons/hints.py).
    hints: Mapped[list[str]] = mapped_column(JSON, default=list, server_default=text("'[]'"))
    hints_after: Mapped[int] = mapped_column(Integer, default=2, server_default="2")
    # `translations` (Synced), per language: title, prompt_html, hints, and starter_code /
    # solution_code where the language has its own (Turkish identifiers); graded against
    # the same expected output.


class HintOpening(Base):
    """A student opened one of an exercise's hints (each hint once; the first time counts)."""

    __tablename__ = "hint_openings"
    __table_args__ = (UniqueConstraint("user_id", "exercise_id", "hint_index"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    exercise_id: Mapped[str] = mapped_column(ForeignKey("exercises.id"), index=True)
    hint_index: Mapped[int] = mapped_column(Integer)  # 0 for the first hint
    opened_at: Mapped[datetime] = mapped_column(default=utcnow)
