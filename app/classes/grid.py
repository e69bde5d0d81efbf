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
- answers_requested: questions whose answer the student asked to be shown ("Show the
  answer") before answering them right or using their tries; counted whatever came after.
- completed_at: when the lesson became complete, the time of the answer or graded
  submission that did its last item (each item counts from its first success);
- state, late_by_hours, score_percent: app/classes/due.py, against the student's
  effective due date (their extension, else the assignment's); the score counts items done
  after that date under the assignment's late policy.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Integer,
    and_,
    case,
    cast,
    func,
    literal,
    or_,
    select,
    union_all,
)
from sqlalchemy.ext.asyncio import AsyncSession

from app.auth.schemas import fold_for_search
from app.classes import due
from app.classes.due import STATE_LABELS, STATE_SYMBOLS, STATES, LatePolicy, State, state_of
from app.classes.service import (
    active_members,
    assignments,
    by_name,
    class_extensions,
    person_matches,
)
from app.i18n import N_, current_language
from app.models import (
    ClassAssignment,
    ClassMember,
    DueExtension,
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
from app.models.attempt import QuestionReveal
from app.models.content import translated

__all__ = ["STATES", "STATE_LABELS", "STATE_SYMBOLS", "State", "state_of"]


@dataclass
class GridStudent:
    id: int
    username: str
    # The name shown (the account's display name; the username if it has none).
    display_name: str = ""
    student_number: str | None = None

    def __post_init__(self) -> None:
        self.display_name = self.display_name or self.username


@dataclass
class GridLesson:
    slug: str
    title: str
    due_at: datetime | None = None
    policy: LatePolicy = field(default_factory=LatePolicy)


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
    completed_at: datetime | None = None
    # The student's effective due date, and their extension when they have one.
    due_at: datetime | None = None
    extended_to: datetime | None = None
    late_by_hours: float | None = None
    # Items done by the due date (None: not counted, as good as all of them).
    items_on_time: int | None = None
    score_percent: float = 0.0
    answers_requested: int = 0

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


def settle(
    cell: Cell,
    *,
    due_at: datetime | None,
    extended_to: datetime | None,
    policy: LatePolicy,
    now: datetime,
) -> Cell:
    """Give a cell its due date, state, lateness and score (app/classes/due.py)."""
    cell.extended_to = extended_to
    cell.due_at = due.effective_due(due_at, extended_to)
    cell.state = state_of(cell, cell.due_at, now)
    cell.late_by_hours = due.hours(due.late_by(cell.state, cell.completed_at, cell.due_at, now))
    on_time = (
        cell.items_done if cell.due_at is None or cell.items_on_time is None else cell.items_on_time
    )
    cell.score_percent = due.score_percent(
        items_total=cell.items_total,
        items_done=cell.items_done,
        items_on_time=on_time,
        policy=policy,
    )
    return cell


@dataclass(slots=True)
class _Stats:
    correct: int = 0
    attempts: int = 0
    last: datetime | None = None
    # The latest of the items' first successes: when the last item done was done.
    done_at: datetime | None = None
    # Items first done by the student's effective due date (cell_stats with a class).
    on_time: int = 0


async def lesson_columns(*, session: AsyncSession, class_id: int) -> tuple[list[GridLesson], bool]:
    """(the grid's lessons, whether they are the class's assignments)."""
    lessons = [
        GridLesson(
            a.lesson_slug, a.title, a.due_at, LatePolicy(a.late_work, a.late_penalty_percent)
        )
        for a in await assignments(session=session, class_id=class_id)
    ]
    if lessons:
        return lessons, True
    every = await session.execute(
        select(Lesson.slug, Lesson.title, Lesson.translations)
        .where(~Lesson.retired)
        .order_by(Lesson.position)
    )
    language = current_language()
    return [
        GridLesson(slug, translated(words, language, "title", title))
        for slug, title, words in every
    ], False


async def class_lesson(
    *, session: AsyncSession, class_id: int, slug: str, title: str
) -> GridLesson:
    """A lesson as the class's grid has it: its due date and late policy if assigned."""
    lessons, assigned = await lesson_columns(session=session, class_id=class_id)
    return pick_lesson(lessons, assigned, slug=slug, title=title)


def pick_lesson(lessons: list[GridLesson], assigned: bool, *, slug: str, title: str) -> GridLesson:
    """The lesson among `lesson_columns`'s answer if assigned, else one with no due date."""
    found = next((lesson for lesson in lessons if assigned and lesson.slug == slug), None)
    return found or GridLesson(slug, title)


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


def _per_question(students: Callable[[Any], ColumnElement[bool]], slugs: list[str]) -> Any:
    """Per (student, live question): right at least once, answers, last and first right."""
    return (
        select(
            QuestionAttempt.user_id.label("user_id"),
            Question.lesson_slug.label("slug"),
            func.max(case((QuestionAttempt.correct, 1), else_=0)).label("ok"),
            func.count().label("n"),
            func.max(QuestionAttempt.created_at).label("last"),
            func.min(case((QuestionAttempt.correct, QuestionAttempt.created_at))).label("first_ok"),
        )
        .join(Question, Question.id == QuestionAttempt.question_id)
        .where(students(QuestionAttempt.user_id), ~Question.retired)
        .where(Question.lesson_slug.in_(slugs))
        .group_by(QuestionAttempt.user_id, QuestionAttempt.question_id, Question.lesson_slug)
        .subquery()
    )


def _per_exercise(students: Callable[[Any], ColumnElement[bool]], slugs: list[str]) -> Any:
    """Per (student, live exercise): passed, graded submissions, last and first passed."""
    passed = Submission.verdict == Verdict.PASSED
    return (
        select(
            Submission.user_id.label("user_id"),
            Exercise.lesson_slug.label("slug"),
            func.max(case((passed, 1), else_=0)).label("ok"),
            func.count().label("n"),
            func.max(Submission.created_at).label("last"),
            func.min(case((passed, Submission.created_at))).label("first_ok"),
        )
        .join(Exercise, Exercise.id == Submission.exercise_id)
        .where(students(Submission.user_id), ~Exercise.retired)
        .where(Exercise.lesson_slug.in_(slugs))
        .where(Submission.mode == SubmissionMode.GRADE, Submission.status == SubmissionStatus.DONE)
        .group_by(Submission.user_id, Submission.exercise_id, Exercise.lesson_slug)
        .subquery()
    )


async def cell_stats(
    *,
    session: AsyncSession,
    students: Callable[[Any], ColumnElement[bool]],
    slugs: list[str],
    class_id: int | None = None,
) -> tuple[dict[tuple[int, str], _Stats], dict[tuple[int, str], _Stats]]:
    """Per (student, lesson): questions right and answers given; exercises passed and graded
    submissions. `students` filters user ids (a class's members, or one student). With a
    `class_id`, also the items first done by each student's effective due date (their
    extension, else the assignment's; every item done where there is no due date)."""
    # Two levels of GROUP BY (per item, then per lesson) rather than COUNT(DISTINCT ...):
    # hash aggregates all the way, which PostgreSQL runs several times faster. The due
    # dates are joined at the second level, so the items are read once, not once more for
    # the on-time counts.

    def per_lesson(items: Any) -> Any:
        # SUM is NUMERIC on PostgreSQL (Decimal in Python): cast, it is a small count.
        query = select(
            items.c.user_id,
            items.c.slug,
            cast(func.sum(items.c.ok), Integer),
            cast(func.sum(items.c.n), Integer),
            func.max(items.c.last),
            func.max(items.c.first_ok),
        ).group_by(items.c.user_id, items.c.slug)
        if class_id is None:
            return query.add_columns(literal(0))
        due_at = func.coalesce(DueExtension.due_at, ClassAssignment.due_at)
        on_time = and_(
            items.c.first_ok.is_not(None), or_(due_at.is_(None), items.c.first_ok <= due_at)
        )
        return (
            query.add_columns(cast(func.sum(case((on_time, 1), else_=0)), Integer))
            .select_from(items)
            .outerjoin(
                ClassAssignment,
                and_(
                    ClassAssignment.class_id == class_id,
                    ClassAssignment.lesson_slug == items.c.slug,
                ),
            )
            .outerjoin(
                DueExtension,
                and_(
                    DueExtension.assignment_id == ClassAssignment.id,
                    DueExtension.student_id == items.c.user_id,
                ),
            )
        )

    q_rows = await session.execute(per_lesson(_per_question(students, slugs)))
    s_rows = await session.execute(per_lesson(_per_exercise(students, slugs)))
    questions = {
        (user, slug): _Stats(int(right), int(n), last, done, int(on_time))
        for user, slug, right, n, last, done, on_time in q_rows
    }
    exercises = {
        (user, slug): _Stats(int(passed), int(n), last, done, int(on_time))
        for user, slug, passed, n, last, done, on_time in s_rows
    }
    return questions, exercises


def on_time_counts(
    stats: tuple[dict[tuple[int, str], _Stats], dict[tuple[int, str], _Stats]],
) -> dict[tuple[int, str], int]:
    """Per (student, lesson): the items done by the due date, from `cell_stats` asked with
    the class."""
    questions, exercises = stats
    return {
        key: (questions[key].on_time if key in questions else 0)
        + (exercises[key].on_time if key in exercises else 0)
        for key in questions.keys() | exercises.keys()
    }


@dataclass(frozen=True)
class SolutionViews:
    """What a student was shown before doing it themselves, in one lesson."""

    exercises_given_up: int = 0
    answers_requested: int = 0


NO_VIEWS = SolutionViews()


async def given_up_counts(
    *,
    session: AsyncSession,
    students: Callable[[Any], ColumnElement[bool]],
    slugs: list[str],
) -> dict[tuple[int, str], SolutionViews]:
    """Per (student, lesson): the live exercises the student gave up on and the live
    questions whose answer they asked to be shown, in one query (solution_reveals and
    question_reveals are unique on student and item)."""
    exercises = (
        select(SolutionReveal.user_id, Exercise.lesson_slug, literal(True).label("exercise"))
        .join(Exercise, Exercise.id == SolutionReveal.exercise_id)
        .where(students(SolutionReveal.user_id), ~Exercise.retired)
        .where(Exercise.lesson_slug.in_(slugs), SolutionReveal.reason == RevealReason.GAVE_UP)
    )
    questions = (
        select(QuestionReveal.user_id, Question.lesson_slug, literal(False).label("exercise"))
        .join(Question, Question.id == QuestionReveal.question_id)
        .where(students(QuestionReveal.user_id), ~Question.retired)
        .where(Question.lesson_slug.in_(slugs))
    )
    both = union_all(exercises, questions).subquery()
    rows = await session.execute(
        select(both.c.user_id, both.c.lesson_slug, both.c.exercise, func.count()).group_by(
            both.c.user_id, both.c.lesson_slug, both.c.exercise
        )
    )
    counts: dict[tuple[int, str], SolutionViews] = {}
    for user, slug, exercise, count in rows:
        views = counts.get((user, slug), NO_VIEWS)
        field_name = "exercises_given_up" if exercise else "answers_requested"
        counts[(user, slug)] = replace(views, **{field_name: int(count)})
    return counts


def fill_cells(
    *,
    student_ids: list[int],
    lessons: list[GridLesson],
    totals: tuple[dict[str, int], dict[str, int]],
    stats: tuple[dict[tuple[int, str], _Stats], dict[tuple[int, str], _Stats]],
    now: datetime,
    given_up: dict[tuple[int, str], SolutionViews] | None = None,
    extensions: dict[tuple[int, str], datetime] | None = None,
    on_time: dict[tuple[int, str], int] | None = None,
) -> dict[tuple[int, str], Cell]:
    """`on_time`: items done by the due date, from `on_time_counts` (None: not counted)."""
    q_total, e_total = totals
    q_stats, e_stats = stats
    empty = _Stats()
    cells: dict[tuple[int, str], Cell] = {}
    for lesson in lessons:
        slug = lesson.slug
        questions, exercises = q_total.get(slug, 0), e_total.get(slug, 0)
        for student_id in student_ids:
            key = (student_id, slug)
            q = q_stats.get(key, empty)
            e = e_stats.get(key, empty)
            views = (given_up or {}).get(key, NO_VIEWS)
            cell = Cell(
                student_id,
                slug,
                q.correct,
                questions,
                e.correct,
                exercises,
                q.attempts + e.attempts,
                _latest(q.last, e.last),
                exercises_given_up=views.exercises_given_up,
                items_on_time=None if on_time is None else on_time.get(key, 0),
                answers_requested=views.answers_requested,
            )
            if cell.items_total and cell.items_done >= cell.items_total:
                cell.completed_at = _latest(q.done_at, e.done_at)
            settle(
                cell,
                due_at=lesson.due_at,
                extended_to=(extensions or {}).get(key),
                policy=lesson.policy,
                now=now,
            )
            cells[key] = cell
    return cells


def _latest(a: datetime | None, b: datetime | None) -> datetime | None:
    if a is None or b is None:
        return a or b
    return max(a, b)


async def build_grid(*, session: AsyncSession, class_id: int, now: datetime | None = None) -> Grid:
    """The whole grid of a class in nine queries."""
    now = now or utcnow()
    students = sorted(
        (
            GridStudent(i, name, display_name, number)
            for i, name, display_name, number in (
                await session.execute(
                    select(User.id, User.username, User.display_name, ClassMember.student_number)
                    .join(ClassMember, ClassMember.student_id == User.id)
                    .where(ClassMember.class_id == class_id, ClassMember.removed_at.is_(None))
                )
            )
        ),
        key=by_name,
    )
    lessons, assigned = await lesson_columns(session=session, class_id=class_id)
    slugs = [lesson.slug for lesson in lessons]
    if not students or not lessons:
        return Grid(students, lessons, {}, assigned)
    totals = await item_totals(session=session, slugs=slugs)
    members = active_members(class_id)

    def in_class(col: Any) -> ColumnElement[bool]:
        return col.in_(members)

    stats = await cell_stats(session=session, students=in_class, slugs=slugs, class_id=class_id)
    given_up = await given_up_counts(session=session, students=in_class, slugs=slugs)
    cells = fill_cells(
        student_ids=[s.id for s in students],
        lessons=lessons,
        totals=totals,
        stats=stats,
        now=now,
        given_up=given_up,
        extensions=await class_extensions(session=session, class_id=class_id),
        on_time=on_time_counts(stats),
    )
    return Grid(students, lessons, cells, assigned)


async def student_cells(
    *, session: AsyncSession, student_id: int, slugs: list[str]
) -> dict[str, Cell]:
    """One student's cells for some lessons (their home page), in four queries. The state
    ignores due dates: the caller applies each assignment's own with `settle` (or
    `state_of`)."""
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


async def class_cell(
    *, session: AsyncSession, class_id: int, student_id: int, lesson: GridLesson
) -> Cell:
    """One student's cell of a class's grid (the drill-down): the same as the grid's."""

    def one(col: Any) -> ColumnElement[bool]:
        return col == student_id

    slugs = [lesson.slug]
    stats = await cell_stats(session=session, students=one, slugs=slugs, class_id=class_id)
    cells = fill_cells(
        student_ids=[student_id],
        lessons=[lesson],
        totals=await item_totals(session=session, slugs=slugs),
        stats=stats,
        now=utcnow(),
        given_up=await given_up_counts(session=session, students=one, slugs=slugs),
        extensions=await class_extensions(
            session=session, class_id=class_id, student_id=student_id
        ),
        on_time=on_time_counts(stats),
    )
    return cells[(student_id, lesson.slug)]


# --- what the grid page shows: filtering, sorting, paging (all server-side) -------------

SORTS = ("student", "progress", "activity")


@dataclass
class GridRow:
    student: GridStudent
    cells: list[Cell]
    done: int
    fraction: float
    last_activity_at: datetime | None


# The grid's filter: one state, or "never_active" (nothing tried, due date passed or not).
FILTERS: tuple[str, ...] = (*STATES, "never_active")
FILTER_LABELS: dict[str, str] = STATE_LABELS | {"never_active": N_("Never active")}
# A lesson's column sorted: its strongest first.
RANK: dict[str, int] = {state: len(STATES) - i for i, state in enumerate(STATES)}


def matches(cell: Cell, wanted: str) -> bool:
    if wanted == "never_active":
        return cell.state in due.NEVER_ACTIVE
    return cell.state == wanted


@dataclass
class GridView:
    lessons: list[GridLesson]
    rows: list[GridRow]
    total_rows: int
    page: int
    pages: int
    # Students (not cells) with at least one shown lesson in each state, and per lesson.
    counts: dict[str, int]
    lesson_counts: dict[str, dict[str, int]] = field(default_factory=dict)


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
    students: set[int] | None = None,
) -> GridView:
    """Filter (student name, a state or "never_active", some lessons, some students by id:
    those behind one of insight's groups), sort (by student,
    overall progress, last activity, or one lesson's column: `lesson:<slug>`) and page the
    grid. Counts are of the students that match."""
    wanted = set(lessons or [])
    shown = [lesson for lesson in grid.lessons if lesson.slug in wanted] or grid.lessons
    needle = fold_for_search(search)
    rows: list[GridRow] = []
    counts: dict[str, int] = dict.fromkeys(STATES, 0)
    per_lesson: dict[str, dict[str, int]] = {
        lesson.slug: dict.fromkeys(STATES, 0) for lesson in shown
    }
    for student in grid.students:
        if students and student.id not in students:
            continue
        if needle and not person_matches(needle, student):
            continue
        cells = [grid.cell(student.id, lesson.slug) for lesson in shown]
        # A student is never active with nothing tried in every lesson shown (pick one lesson
        # to see who never started it); a state, with one lesson shown in it.
        wanted_cells = all if state == "never_active" else any
        if state in FILTER_LABELS and not wanted_cells(matches(c, state) for c in cells):
            continue
        for c in cells:
            per_lesson[c.lesson_slug][c.state] += 1
        for key in {c.state for c in cells}:
            counts[key] += 1
        total = sum(c.items_total for c in cells)
        times = [c.last_activity_at for c in cells if c.last_activity_at]
        rows.append(
            GridRow(
                student=student,
                cells=cells,
                done=sum(due.is_done(c) for c in cells),
                fraction=sum(c.items_done for c in cells) / total if total else 0.0,
                last_activity_at=max(times) if times else None,
            )
        )
    slug = sort.removeprefix("lesson:") if sort.startswith("lesson:") else None
    column = next((i for i, lesson in enumerate(shown) if lesson.slug == slug), None)
    if column is not None:
        rows.sort(
            key=lambda r: (
                RANK[r.cells[column].state],
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
        rows.reverse()  # grid.students is already by name (service.by_name)
    pages = max(1, -(-len(rows) // per_page))
    page = min(max(page, 1), pages)
    return GridView(
        lessons=shown,
        rows=rows[(page - 1) * per_page : page * per_page],
        total_rows=len(rows),
        page=page,
        pages=pages,
        counts=counts,
        lesson_counts=per_lesson,
    )
