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
from app.lessons.catalog import is_live
from app.models import (
    ClassAssignment,
    ClassMember,
    DueExtension,
    Exercise,
    Lesson,
    Question,
    RevealReason,
    SolutionReveal,
    User,
    utcnow,
)
from app.models.attempt import QuestionReveal
from app.models.content import translated
from app.models.item_progress import EXERCISE, QUESTION, ItemProgress

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
    """One student's work on one lesson's live items."""

    questions_correct: int = 0
    exercises_passed: int = 0
    attempts: int = 0
    last: datetime | None = None
    # The latest of the items' first successes: when the last item done was done.
    done_at: datetime | None = None
    # Items first done by the student's effective due date (cell_stats with a class; None
    # without one: not counted).
    on_time: int | None = None


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
        .where(is_live(Lesson))
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
        .where(is_live(Question), Question.lesson_slug.in_(slugs))
        .group_by(Question.lesson_slug)
    )
    exercises = (
        select(Exercise.lesson_slug, literal("e"), func.count())
        .where(is_live(Exercise), Exercise.lesson_slug.in_(slugs))
        .group_by(Exercise.lesson_slug)
    )
    q_total: dict[str, int] = {}
    e_total: dict[str, int] = {}
    for slug, kind, count in await session.execute(union_all(questions, exercises)):
        (q_total if kind == "q" else e_total)[slug] = int(count)
    return q_total, e_total


def _live_items(students: Callable[[Any], ColumnElement[bool]], slugs: list[str]) -> Any:
    """Per (student, live item of the lessons), the students' records (item_progress, one row
    per student and item, its lesson copied in): no join, no per-item grouping; retired
    items (few) are left out by id."""
    retired_questions = select(Question.id).where(~is_live(Question))
    retired_exercises = select(Exercise.id).where(~is_live(Exercise))
    return (
        select(
            ItemProgress.user_id.label("user_id"),
            ItemProgress.kind.label("kind"),
            ItemProgress.lesson_slug.label("slug"),
            ItemProgress.attempts.label("n"),
            ItemProgress.last_at.label("last"),
            ItemProgress.first_ok_at.label("first_ok"),
        )
        .where(students(ItemProgress.user_id), ItemProgress.lesson_slug.in_(slugs))
        .where(
            or_(
                and_(ItemProgress.kind == QUESTION, ItemProgress.item_id.not_in(retired_questions)),
                and_(ItemProgress.kind == EXERCISE, ItemProgress.item_id.not_in(retired_exercises)),
            )
        )
        .subquery()
    )


async def cell_stats(
    *,
    session: AsyncSession,
    students: Callable[[Any], ColumnElement[bool]],
    slugs: list[str],
    class_id: int | None = None,
) -> dict[tuple[int, str], _Stats]:
    """Per (student, lesson) with any work: questions right, exercises passed, attempts (answers
    and graded submissions), in one query over the students' records (app/item_progress.py).
    `students` filters user ids (a class's members, or one student). With a `class_id`, also
    the items first done by each student's effective due date (their extension, else the
    assignment's; every item done where there is no due date)."""
    items = _live_items(students, slugs)
    done = items.c.first_ok.is_not(None)

    def count(condition: ColumnElement[bool]) -> Any:
        # SUM is NUMERIC on PostgreSQL (Decimal in Python): cast, it is a small count.
        return cast(func.sum(case((condition, 1), else_=0)), Integer)

    query = select(
        items.c.user_id,
        items.c.slug,
        count(and_(done, items.c.kind == QUESTION)),
        count(and_(done, items.c.kind == EXERCISE)),
        cast(func.sum(items.c.n), Integer),
        func.max(items.c.last),
        func.max(items.c.first_ok),
    ).group_by(items.c.user_id, items.c.slug)
    if class_id is not None:
        # The due dates joined here, so the on-time counts come from the same rows.
        due_at = func.coalesce(DueExtension.due_at, ClassAssignment.due_at)
        query = (
            query.add_columns(count(and_(done, or_(due_at.is_(None), items.c.first_ok <= due_at))))
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
    return {
        (row[0], row[1]): _Stats(
            row[2], row[3], row[4], row[5], row[6], row[7] if class_id is not None else None
        )
        for row in await session.execute(query)
    }


@dataclass(frozen=True)
class SolutionViews:
    """What a student was shown before doing it themselves, in one lesson."""

    exercises_given_up: int = 0
    answers_requested: int = 0


NO_VIEWS = SolutionViews()
_NO_WORK = _Stats()


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
        .where(students(SolutionReveal.user_id), is_live(Exercise))
        .where(Exercise.lesson_slug.in_(slugs), SolutionReveal.reason == RevealReason.GAVE_UP)
    )
    questions = (
        select(QuestionReveal.user_id, Question.lesson_slug, literal(False).label("exercise"))
        .join(Question, Question.id == QuestionReveal.question_id)
        .where(students(QuestionReveal.user_id), is_live(Question))
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
    stats: dict[tuple[int, str], _Stats],
    now: datetime,
    given_up: dict[tuple[int, str], SolutionViews] | None = None,
    extensions: dict[tuple[int, str], datetime] | None = None,
    on_time_counted: bool = False,
) -> dict[tuple[int, str], Cell]:
    """Every (student, lesson) cell, settled (`settle`). `on_time_counted`: `stats` came with
    a class's due dates (`cell_stats`'s `class_id`). A class's grid is mostly cells with
    nothing tried: those of one lesson are alike, so one is settled per lesson and copied."""
    untouched_on_time = 0 if on_time_counted else None
    q_total, e_total = totals
    given_up = given_up or {}
    extensions = extensions or {}
    cells: dict[tuple[int, str], Cell] = {}
    for lesson in lessons:
        slug = lesson.slug
        questions, exercises = q_total.get(slug, 0), e_total.get(slug, 0)
        blank = settle(
            Cell(0, slug, 0, questions, 0, exercises),
            due_at=lesson.due_at,
            extended_to=None,
            policy=lesson.policy,
            now=now,
        )
        for student_id in student_ids:
            key = (student_id, slug)
            work = stats.get(key)
            views = given_up.get(key)
            extended_to = extensions.get(key)
            if work is None and views is None and extended_to is None:
                cells[key] = Cell(
                    student_id,
                    slug,
                    0,
                    questions,
                    0,
                    exercises,
                    state=blank.state,
                    due_at=blank.due_at,
                    late_by_hours=blank.late_by_hours,
                    items_on_time=untouched_on_time,
                )
                continue
            on_time = untouched_on_time if work is None else work.on_time
            work = work or _NO_WORK
            views = views or NO_VIEWS
            cell = Cell(
                student_id,
                slug,
                work.questions_correct,
                questions,
                work.exercises_passed,
                exercises,
                work.attempts,
                work.last,
                exercises_given_up=views.exercises_given_up,
                items_on_time=on_time,
                answers_requested=views.answers_requested,
            )
            if cell.items_total and cell.items_done >= cell.items_total:
                cell.completed_at = work.done_at
            cells[key] = settle(
                cell, due_at=lesson.due_at, extended_to=extended_to, policy=lesson.policy, now=now
            )
    return cells


async def build_grid(
    *, session: AsyncSession, class_id: int, now: datetime | None = None, states_only: bool = False
) -> Grid:
    """The whole grid of a class in six queries (seven while nothing is assigned).
    `states_only`: what the cells' states and counts need and no more (insight's lesson
    summaries): no give-ups or requested answers, no items done by the due date, so every
    score counts late work as on time. Two queries' work less on a big class."""
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

    stats = await cell_stats(
        session=session, students=in_class, slugs=slugs, class_id=None if states_only else class_id
    )
    given_up = (
        None
        if states_only
        else await given_up_counts(session=session, students=in_class, slugs=slugs)
    )
    cells = fill_cells(
        student_ids=[s.id for s in students],
        lessons=lessons,
        totals=totals,
        stats=stats,
        now=now,
        given_up=given_up,
        extensions=await class_extensions(session=session, class_id=class_id),
        on_time_counted=not states_only,
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
        on_time_counted=True,
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


def state_context() -> dict[str, Any]:
    """The state words and marks a page that shows cells hands its template."""
    return {"state_labels": STATE_LABELS, "state_symbols": STATE_SYMBOLS}
