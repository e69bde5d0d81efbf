"""The progress grid: students by lessons, computed with a fixed number of aggregate queries
(GROUP BY student and lesson), whatever the size of the class or the catalog.

Which lessons: the class's assigned lessons in course order, or, while nothing is assigned,
every lesson in the catalog.

A cell counts the live (not retired) questions and exercises of its lesson:
- questions_correct: questions answered right at least once; exercises_passed: exercises
  with a graded submission that passed;
- attempts: every answer given plus every graded submission (mode "grade", status "done";
  a platform error is not the student's attempt); last_activity_at: the newest of those.
- exercises_given_up: exercises whose sample solution the student asked to see before
  passing them ("Give up and show the solution"); counted whatever happened after.
- state: "done" when every question is right and every exercise passed; else "late" once
  the lesson's due date has passed; else "in_progress" after any attempt; else
  "not_started".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from sqlalchemy import ColumnElement, Integer, case, cast, func, literal, select, union_all
from sqlalchemy.ext.asyncio import AsyncSession

from app.classes.service import active_members
from app.i18n import N_
from app.models import (
    ClassAssignment,
    ClassMember,
    Exercise,
    Lesson,
    Question,
    QuestionAttempt,
    RevealReason,
    SolutionReveal,
    Submission,
    SubmissionMode,
    SubmissionStatus,
    User,
    Verdict,
    utcnow,
)

State = Literal["not_started", "in_progress", "done", "late"]
STATES: tuple[State, ...] = ("done", "in_progress", "late", "not_started")
STATE_LABELS: dict[str, str] = {
    "done": N_("Done"),
    "in_progress": N_("In progress"),
    "late": N_("Late"),
    "not_started": N_("Not started"),
}
STATE_SYMBOLS: dict[str, str] = {"done": "✓", "in_progress": "◐", "late": "!", "not_started": "○"}


@dataclass
class GridStudent:
    id: int
    username: str


@dataclass
class GridLesson:
    slug: str
    title: str
    due_at: datetime | None = None


@dataclass(slots=True)
class Cell:
    student_id: int
    lesson_slug: str
    questions_correct: int = 0
    questions_total: int = 0
    exercises_passed: int = 0
    exercises_total: int = 0
    attempts: int = 0
    last_activity_at: datetime | None = None
    state: State = "not_started"
    exercises_given_up: int = 0

    @property
    def items_total(self) -> int:
        return self.questions_total + self.exercises_total

    @property
    def items_done(self) -> int:
        return self.questions_correct + self.exercises_passed

    @property
    def fraction(self) -> float:
        return self.items_done / self.items_total if self.items_total else 0.0


@dataclass
class Grid:
    students: list[GridStudent]
    lessons: list[GridLesson]
    cells: dict[tuple[int, str], Cell]
    assigned: bool = field(default=False)

    def cell(self, student_id: int, slug: str) -> Cell:
        return self.cells[(student_id, slug)]


def state_of(cell: Cell, due_at: datetime | None, now: datetime) -> State:
    if cell.items_total and cell.items_done >= cell.items_total:
        return "done"
    if due_at is not None and now > due_at:
        return "late"
    if cell.attempts or cell.items_done:
        return "in_progress"
    return "not_started"


@dataclass(slots=True)
class _Stats:
    correct: int = 0
    attempts: int = 0
    last: datetime | None = None


async def lesson_columns(*, session: AsyncSession, class_id: int) -> tuple[list[GridLesson], bool]:
    """(the grid's lessons, whether they are the class's assignments)."""
    assigned = await session.execute(
        select(Lesson.slug, Lesson.title, ClassAssignment.due_at)
        .join(ClassAssignment, ClassAssignment.lesson_slug == Lesson.slug)
        .where(ClassAssignment.class_id == class_id, ~Lesson.retired)
        .order_by(Lesson.position)
    )
    lessons = [GridLesson(slug, title, due) for slug, title, due in assigned]
    if lessons:
        return lessons, True
    every = await session.execute(
        select(Lesson.slug, Lesson.title).where(~Lesson.retired).order_by(Lesson.position)
    )
    return [GridLesson(slug, title) for slug, title in every], False


async def item_totals(
    *, session: AsyncSession, slugs: list[str]
) -> tuple[dict[str, int], dict[str, int]]:
    """Live questions and exercises per lesson, in one query."""
    questions = (
        select(Question.lesson_slug, literal("q"), func.count())
        .where(~Question.retired, Question.lesson_slug.in_(slugs))
        .group_by(Question.lesson_slug)
    )
    exercises = (
        select(Exercise.lesson_slug, literal("e"), func.count())
        .where(~Exercise.retired, Exercise.lesson_slug.in_(slugs))
        .group_by(Exercise.lesson_slug)
    )
    q_total: dict[str, int] = {}
    e_total: dict[str, int] = {}
    for slug, kind, count in await session.execute(union_all(questions, exercises)):
        (q_total if kind == "q" else e_total)[slug] = int(count)
    return q_total, e_total


async def cell_stats(
    *,
    session: AsyncSession,
    students: Callable[[Any], ColumnElement[bool]],
    slugs: list[str],
) -> tuple[dict[tuple[int, str], _Stats], dict[tuple[int, str], _Stats]]:
    """Per (student, lesson): questions right and answers given; exercises passed and graded
    submissions. `students` filters user ids (a class's members, or one student)."""
    # Two levels of GROUP BY (per item, then per lesson) rather than COUNT(DISTINCT ...):
    # hash aggregates all the way, which PostgreSQL runs several times faster.
    per_question = (
        select(
            QuestionAttempt.user_id.label("user_id"),
            Question.lesson_slug.label("slug"),
            func.max(case((QuestionAttempt.correct, 1), else_=0)).label("ok"),
            func.count().label("n"),
            func.max(QuestionAttempt.created_at).label("last"),
        )
        .join(Question, Question.id == QuestionAttempt.question_id)
        .where(students(QuestionAttempt.user_id), ~Question.retired)
        .where(Question.lesson_slug.in_(slugs))
        .group_by(QuestionAttempt.user_id, QuestionAttempt.question_id, Question.lesson_slug)
        .subquery()
    )
    per_exercise = (
        select(
            Submission.user_id.label("user_id"),
            Exercise.lesson_slug.label("slug"),
            func.max(case((Submission.verdict == Verdict.PASSED, 1), else_=0)).label("ok"),
            func.count().label("n"),
            func.max(Submission.created_at).label("last"),
        )
        .join(Exercise, Exercise.id == Submission.exercise_id)
        .where(students(Submission.user_id), ~Exercise.retired)
        .where(Exercise.lesson_slug.in_(slugs))
        .where(Submission.mode == SubmissionMode.GRADE, Submission.status == SubmissionStatus.DONE)
        .group_by(Submission.user_id, Submission.exercise_id, Exercise.lesson_slug)
        .subquery()
    )

    def per_lesson(items: Any) -> Any:
        # SUM is NUMERIC on PostgreSQL (Decimal in Python): cast, it is a small count.
        return select(
            items.c.user_id,
            items.c.slug,
            cast(func.sum(items.c.ok), Integer),
            cast(func.sum(items.c.n), Integer),
            func.max(items.c.last),
        ).group_by(items.c.user_id, items.c.slug)

    q_rows = await session.execute(per_lesson(per_question))
    s_rows = await session.execute(per_lesson(per_exercise))
    questions = {
        (user, slug): _Stats(int(right), int(n), last) for user, slug, right, n, last in q_rows
    }
    exercises = {
        (user, slug): _Stats(int(passed), int(n), last) for user, slug, passed, n, last in s_rows
    }
    return questions, exercises


async def given_up_counts(
    *,
    session: AsyncSession,
    students: Callable[[Any], ColumnElement[bool]],
    slugs: list[str],
) -> dict[tuple[int, str], int]:
    """Per (student, lesson): the live exercises the student gave up on (one row per
    student and exercise at most: solution_reveals is unique on the pair)."""
    rows = await session.execute(
        select(SolutionReveal.user_id, Exercise.lesson_slug, func.count())
        .join(Exercise, Exercise.id == SolutionReveal.exercise_id)
        .where(students(SolutionReveal.user_id), ~Exercise.retired)
        .where(Exercise.lesson_slug.in_(slugs), SolutionReveal.reason == RevealReason.GAVE_UP)
        .group_by(SolutionReveal.user_id, Exercise.lesson_slug)
    )
    return {(user, slug): int(count) for user, slug, count in rows}


def fill_cells(
    *,
    student_ids: list[int],
    lessons: list[GridLesson],
    totals: tuple[dict[str, int], dict[str, int]],
    stats: tuple[dict[tuple[int, str], _Stats], dict[tuple[int, str], _Stats]],
    now: datetime,
    given_up: dict[tuple[int, str], int] | None = None,
) -> dict[tuple[int, str], Cell]:
    q_total, e_total = totals
    q_stats, e_stats = stats
    empty = _Stats()
    cells: dict[tuple[int, str], Cell] = {}
    for lesson in lessons:
        slug, due = lesson.slug, lesson.due_at
        questions, exercises = q_total.get(slug, 0), e_total.get(slug, 0)
        for student_id in student_ids:
            key = (student_id, slug)
            q = q_stats.get(key, empty)
            e = e_stats.get(key, empty)
            last = q.last if e.last is None or (q.last is not None and q.last > e.last) else e.last
            cell = Cell(
                student_id,
                slug,
                q.correct,
                questions,
                e.correct,
                exercises,
                q.attempts + e.attempts,
                last,
                exercises_given_up=(given_up or {}).get(key, 0),
            )
            cell.state = state_of(cell, due, now)
            cells[key] = cell
    return cells


async def build_grid(*, session: AsyncSession, class_id: int, now: datetime | None = None) -> Grid:
    """The whole grid of a class in seven queries."""
    now = now or utcnow()
    students = [
        GridStudent(i, name)
        for i, name in (
            await session.execute(
                select(User.id, User.username)
                .join(ClassMember, ClassMember.student_id == User.id)
                .where(ClassMember.class_id == class_id, ClassMember.removed_at.is_(None))
                .order_by(User.username)
            )
        )
    ]
    lessons, assigned = await lesson_columns(session=session, class_id=class_id)
    slugs = [lesson.slug for lesson in lessons]
    if not students or not lessons:
        return Grid(students, lessons, {}, assigned)
    totals = await item_totals(session=session, slugs=slugs)
    members = active_members(class_id)
    stats = await cell_stats(session=session, students=lambda col: col.in_(members), slugs=slugs)
    given_up = await given_up_counts(
        session=session, students=lambda col: col.in_(members), slugs=slugs
    )
    cells = fill_cells(
        student_ids=[s.id for s in students],
        lessons=lessons,
        totals=totals,
        stats=stats,
        now=now,
        given_up=given_up,
    )
    return Grid(students, lessons, cells, assigned)


async def student_cells(
    *, session: AsyncSession, student_id: int, slugs: list[str]
) -> dict[str, Cell]:
    """One student's cells for some lessons (their home page, the drill-down), in four
    queries. The state
    ignores due dates: the caller applies each assignment's own with `state_of`."""
    if not slugs:
        return {}
    unique = sorted(set(slugs))
    totals = await item_totals(session=session, slugs=unique)
    stats = await cell_stats(session=session, students=lambda col: col == student_id, slugs=unique)
    given_up = await given_up_counts(
        session=session, students=lambda col: col == student_id, slugs=unique
    )
    cells = fill_cells(
        student_ids=[student_id],
        lessons=[GridLesson(slug, slug) for slug in unique],
        totals=totals,
        stats=stats,
        now=utcnow(),
        given_up=given_up,
    )
    return {slug: cell for (_, slug), cell in cells.items()}


# --- what the grid page shows: filtering, sorting, paging (all server-side) -------------

SORTS = ("student", "progress", "activity")


@dataclass
class GridRow:
    student: GridStudent
    cells: list[Cell]
    done: int
    fraction: float
    last_activity_at: datetime | None


@dataclass
class GridView:
    lessons: list[GridLesson]
    rows: list[GridRow]
    total_rows: int
    page: int
    pages: int
    counts: dict[str, int]


def view_grid(
    grid: Grid,
    *,
    search: str = "",
    state: str = "",
    lessons: list[str] | None = None,
    sort: str = "student",
    descending: bool = False,
    page: int = 1,
    per_page: int = 100,
) -> GridView:
    """Filter (student name, a state, some lessons), sort (by student, overall progress,
    last activity, or one lesson's column: `lesson:<slug>`) and page the grid."""
    wanted = set(lessons or [])
    shown = [lesson for lesson in grid.lessons if lesson.slug in wanted] or grid.lessons
    needle = search.strip().lower()
    rows: list[GridRow] = []
    counts: dict[str, int] = dict.fromkeys(STATES, 0)
    for student in grid.students:
        if needle and needle not in student.username.lower():
            continue
        cells = [grid.cell(student.id, lesson.slug) for lesson in shown]
        if state in STATE_LABELS and all(c.state != state for c in cells):
            continue
        for c in cells:
            counts[c.state] += 1
        total = sum(c.items_total for c in cells)
        times = [c.last_activity_at for c in cells if c.last_activity_at]
        rows.append(
            GridRow(
                student=student,
                cells=cells,
                done=sum(c.state == "done" for c in cells),
                fraction=sum(c.items_done for c in cells) / total if total else 0.0,
                last_activity_at=max(times) if times else None,
            )
        )
    slug = sort.removeprefix("lesson:") if sort.startswith("lesson:") else None
    column = next((i for i, lesson in enumerate(shown) if lesson.slug == slug), None)
    if column is not None:
        rank = {"done": 3, "in_progress": 2, "not_started": 1, "late": 0}
        rows.sort(
            key=lambda r: (
                rank[r.cells[column].state],
                r.cells[column].fraction,
                -r.cells[column].attempts,
            ),
            reverse=not descending,  # the lesson's strongest first, unless reversed
        )
    elif sort == "progress":
        rows.sort(key=lambda r: (r.fraction, r.done), reverse=not descending)
    elif sort == "activity":
        rows.sort(
            key=lambda r: (r.last_activity_at is not None, r.last_activity_at or datetime.min),
            reverse=not descending,
        )
    elif descending:
        rows.reverse()  # grid.students is already by username
    pages = max(1, -(-len(rows) // per_page))
    page = min(max(page, 1), pages)
    return GridView(
        lessons=shown,
        rows=rows[(page - 1) * per_page : page * per_page],
        total_rows=len(rows),
        page=page,
        pages=pages,
        counts=counts,
    )
