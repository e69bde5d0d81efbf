"""The gradebook: one row per student, for people and spreadsheets rather than programs.

Per lesson (the grid's cells, app/classes/reports/grid.py and app/classes/due.py) and per item
(question or exercise, counted here from its first success) the score, when it was done and
whether it was late, then totals. Headers and state names are in the page's language.

Two dialects: plain CSV (comma, ISO 8601 times with their zone, decimal point) and "excel":
a UTF-8 byte order mark so Excel reads the accents, the locale's separator (";" where the
decimal separator is a comma, as in Turkish) and times as "YYYY-MM-DD HH:MM:SS" in UTC,
which Excel reads as dates.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Literal
from urllib.parse import quote

from sqlalchemy import case, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.classes.due import DONE_STATES, LATE_STATES, STATE_LABELS, LatePolicy
from app.classes.reports.export import _text
from app.classes.reports.grid import Cell, Grid
from app.classes.service import active_members, live_items
from app.i18n import current_language, gettext
from app.models import (
    QuestionAttempt,
    Submission,
    SubmissionMode,
    SubmissionStatus,
    Verdict,
)

Dialect = Literal["csv", "excel"]
# Languages that write decimals with a comma, so Excel there splits CSV on ";".
DECIMAL_COMMA = frozenset({"tr"})
BOM = "\ufeff"


@dataclass(frozen=True, slots=True)
class GradeItem:
    key: str  # "q<id>" or "e<id>"
    lesson_slug: str
    label: str


async def lesson_items(
    *, session: AsyncSession, slugs: list[str], language: str
) -> list[GradeItem]:
    """The live questions then exercises of each lesson, in the lessons' order."""
    questions, exercises = await live_items(session=session, slugs=slugs)
    items: list[GradeItem] = []
    for slug in slugs:
        numbered = [q for q in questions if q.lesson_slug == slug]
        for number, question in enumerate(numbered, start=1):
            label = gettext("Question %(number)s") % {"number": number}
            items.append(GradeItem(f"q{question.id}", slug, label))
        for exercise in (e for e in exercises if e.lesson_slug == slug):
            title = str(exercise.in_language("title", language))
            items.append(GradeItem(f"e{exercise.id}", slug, title))
    return items


async def first_successes(
    *, session: AsyncSession, class_id: int, items: list[GradeItem]
) -> dict[tuple[int, str], datetime]:
    """(student, item key) → the time of the first right answer or passing graded run."""
    members = active_members(class_id)
    question_ids = [i.key[1:] for i in items if i.key[0] == "q"]
    exercise_ids = [i.key[1:] for i in items if i.key[0] == "e"]
    found: dict[tuple[int, str], datetime] = {}
    if question_ids:
        rows = await session.execute(
            select(
                QuestionAttempt.user_id,
                QuestionAttempt.question_id,
                func.min(QuestionAttempt.created_at),
            )
            .where(
                QuestionAttempt.user_id.in_(members),
                QuestionAttempt.question_id.in_(question_ids),
                QuestionAttempt.correct,
            )
            .group_by(QuestionAttempt.user_id, QuestionAttempt.question_id)
        )
        found.update({(user, f"q{qid}"): at for user, qid, at in rows})
    if exercise_ids:
        passed = Submission.verdict == Verdict.PASSED
        rows = await session.execute(
            select(
                Submission.user_id,
                Submission.exercise_id,
                func.min(case((passed, Submission.created_at))),
            )
            .where(
                Submission.user_id.in_(members),
                Submission.exercise_id.in_(exercise_ids),
                Submission.mode == SubmissionMode.GRADE,
                Submission.status == SubmissionStatus.DONE,
                passed,
            )
            .group_by(Submission.user_id, Submission.exercise_id)
        )
        found.update({(user, f"e{eid}"): at for user, eid, at in rows})
    return found


def item_score(done_at: datetime | None, due_at: datetime | None, policy: LatePolicy) -> float:
    """As app/classes/due.py scores a lesson: in full by the due date, less the penalty
    after it (nothing when late work does not count)."""
    if done_at is None:
        return 0.0
    if due_at is None or done_at <= due_at:
        return 100.0
    return float(100 - policy.penalty_percent) if policy.late_work else 0.0


def item_late(done_at: datetime | None, due_at: datetime | None, now: datetime) -> bool:
    """Done after the due date, or not done and the due date passed."""
    if due_at is None:
        return False
    return done_at > due_at if done_at is not None else now > due_at


class _Format:
    def __init__(self, dialect: Dialect, language: str) -> None:
        self.excel = dialect == "excel"
        self.comma = self.excel and language in DECIMAL_COMMA
        self.yes, self.no = gettext("yes"), gettext("no")

    def number(self, value: float) -> str:
        text = f"{value:g}"
        return text.replace(".", ",") if self.comma else text

    def time(self, value: datetime | None) -> str:
        if value is None:
            return ""
        if self.excel:
            # Excel reads no zone: the time in UTC, which the docs say.
            return value.strftime("%Y-%m-%d %H:%M:%S")
        return value.isoformat()

    def flag(self, value: bool) -> str:
        return self.yes if value else self.no


def gradebook_csv(
    grid: Grid,
    items: list[GradeItem],
    successes: dict[tuple[int, str], datetime],
    *,
    dialect: Dialect,
    now: datetime,
) -> str:
    language = current_language()
    fmt = _Format(dialect, language)
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";" if fmt.comma else ",", lineterminator="\r\n")
    header = [gettext("Student"), gettext("Username"), gettext("Student number")]
    for lesson in grid.lessons:
        title = _text(lesson.title)
        header += [
            f"{title}: {gettext('score %')}",
            f"{title}: {gettext('state')}",
            f"{title}: {gettext('completed')}",
            f"{title}: {gettext('late')}",
        ]
    titles = {lesson.slug: lesson.title for lesson in grid.lessons}
    for item in items:
        # Two lessons both have a "Question 1": the lesson's title tells them apart.
        name = _text(f"{titles[item.lesson_slug]} › {item.label}")
        header += [
            f"{name}: {gettext('score %')}",
            f"{name}: {gettext('completed')}",
            f"{name}: {gettext('late')}",
        ]
    header += [gettext("Total score %"), gettext("Lessons done"), gettext("Lessons late")]
    writer.writerow(header)
    lessons = {lesson.slug: lesson for lesson in grid.lessons}
    for student in grid.students:
        cells: list[Cell] = [grid.cell(student.id, lesson.slug) for lesson in grid.lessons]
        row = [_text(student.display_name), _text(student.username), student.student_number or ""]
        for cell in cells:
            row += [
                fmt.number(cell.score_percent),
                gettext(STATE_LABELS[cell.state]),
                fmt.time(cell.completed_at),
                fmt.flag(cell.state in LATE_STATES),
            ]
        for item in items:
            done_at = successes.get((student.id, item.key))
            due_at = grid.cell(student.id, item.lesson_slug).due_at
            policy = lessons[item.lesson_slug].policy
            row += [
                fmt.number(item_score(done_at, due_at, policy)),
                fmt.time(done_at),
                fmt.flag(item_late(done_at, due_at, now)),
            ]
        total = round(sum(c.score_percent for c in cells) / len(cells), 1) if cells else 0.0
        row += [
            fmt.number(total),
            str(sum(c.state in DONE_STATES for c in cells)),
            str(sum(c.state in LATE_STATES for c in cells)),
        ]
        writer.writerow(row)
    text = out.getvalue()
    return BOM + text if fmt.excel else text


def attachment(class_name: str, suffix: str) -> str:
    """Content-Disposition naming the file after the class: an ASCII fallback and the
    name itself in RFC 6266's filename*, path and quote characters replaced."""
    safe = re.sub(r"[\x00-\x1f\x7f\"\\/:*?<>|;,]+", "-", class_name).strip(" .-") or "class"
    full = f"{safe}-{suffix}"
    ascii_name = re.sub(r"[^A-Za-z0-9._-]+", "-", full).strip("-") or suffix
    return f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(full, safe='')}"
