"""The progress grid as CSV: one row per student and lesson, the API's cells with names."""

from __future__ import annotations

import csv
import io

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
)


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
                    cell.last_activity_at.isoformat() if cell.last_activity_at else "",
                    lesson.due_at.isoformat() if lesson.due_at else "",
                    cell.exercises_given_up,
                )
            )
    return out.getvalue()
