"""The progress grid as CSV: one row per student and lesson, the API's cells with names.

Columns only ever join at the end. `due_at` is the student's due date (their extension,
else the lesson's); `extended_to` is set only for an extension; `late_by_hours` is empty
when the cell is not late."""

from __future__ import annotations

import csv
import io
from datetime import datetime

from app.classes.grid import Grid

COLUMNS = (
    "student_id",
    "username",
    "lesson_slug",
    "lesson_title",
    "state",
    "questions_correct",
    "questions_total",
    "exercises_passed",
    "exercises_total",
    "attempts",
    "last_activity_at",
    "due_at",
    "exercises_given_up",
    "completed_at",
    "extended_to",
    "late_by_hours",
    "score_percent",
    "answers_requested",
    "display_name",
    "student_number",
)


def _time(value: datetime | None) -> str:
    return value.isoformat() if value else ""


def _text(value: str) -> str:
    """Keep spreadsheets from reading a cell as a formula (CSV injection)."""
    return "'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


def grid_csv(grid: Grid) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    for student in grid.students:
        for lesson in grid.lessons:
            cell = grid.cell(student.id, lesson.slug)
            writer.writerow(
                (
                    student.id,
                    _text(student.username),
                    lesson.slug,
                    _text(lesson.title),
                    cell.state,
                    cell.questions_correct,
                    cell.questions_total,
                    cell.exercises_passed,
                    cell.exercises_total,
                    cell.attempts,
                    _time(cell.last_activity_at),
                    _time(cell.due_at),
                    cell.exercises_given_up,
                    _time(cell.completed_at),
                    _time(cell.extended_to),
                    "" if cell.late_by_hours is None else cell.late_by_hours,
                    cell.score_percent,
                    cell.answers_requested,
                    _text(student.display_name),
                    _text(student.student_number or ""),
                )
            )
    return out.getvalue()
