"""The report pages of a class for its teacher: the progress grid, a student's work in a
lesson (with the extension and comment forms on it), insight and who needs attention.
They read app/classes/reports; the class's management pages are app/classes/pages.py."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Form, Query, Request, status
from fastapi.responses import Response

from app.auth.dependencies import OptionalUser
from app.classes import service
from app.classes.access import (
    TEACHER_OF_THE_CLASS,
    ClassId,
    LessonSlug,
    StudentId,
    TeacherClass,
    class_student,
)
from app.classes.attempts import attempts_in, compare, neighbours, previous_attempts
from app.classes.comments import CommentRefused, add_comment, comments_on
from app.classes.due import STATES
from app.classes.reports import density as grid_density
from app.classes.reports.attention import Thresholds, needs_attention
from app.classes.reports.drilldown import (
    collapse_repeats,
    exercises_in,
    filter_events,
    lesson_events,
)
from app.classes.reports.expand import expand_lesson
from app.classes.reports.grid import (
    FILTER_LABELS,
    build_grid,
    class_cell,
    lesson_columns,
    pick_lesson,
    state_context,
    view_grid,
)
from app.classes.reports.grid_cells import CellWriter
from app.classes.reports.insight import INSIGHT_LABELS, INSIGHT_SYMBOLS, build_insight
from app.classes.reports.item_summary import spent_label, summarize
from app.classes.router import DueWithinDays, FailedAttempts, IdleDays
from app.classes.schemas import InvalidDueDate, parse_due
from app.db import SessionDep
from app.errors import not_found
from app.i18n import current_language, gettext
from app.ids import MAX_ID, DbIdQuery
from app.lessons import catalog
from app.models import Classroom, Verdict, utcnow
from app.web.flash import flash, take_flash
from app.web.redirects import see_other
from app.web.templating import render

router = APIRouter(include_in_schema=False)
PER_PAGE = 100


# --- progress grid, drill-down, insight -------------------------------------------------


def _link_maker(path: str, params: dict[str, Any]) -> Any:
    def link(**changes: Any) -> str:
        merged = {k: v for k, v in (params | changes).items() if v not in (None, "", [])}
        query = urlencode(merged, doseq=True)
        return f"{path}?{query}" if query else path

    return link


@router.get("/classes/{class_id}/progress")
async def grid_page(
    class_id: ClassId,
    request: Request,
    classroom: TeacherClass,
    session: SessionDep,
    q: Annotated[str, Query(max_length=64)] = "",
    state: Annotated[str, Query(max_length=20)] = "",
    lesson: Annotated[list[str] | None, Query()] = None,
    sort: Annotated[str, Query(max_length=80)] = "student",
    order: Annotated[str, Query(max_length=4)] = "asc",
    page: Annotated[int, Query(ge=1, le=100_000)] = 1,
    student: Annotated[list[int] | None, Query()] = None,
    expand: Annotated[str, Query(max_length=64)] = "",
    density: Annotated[str, Query(max_length=12)] = "",
) -> Response:
    """Filtered, sorted and paged on the server, through query parameters: `q` (part of a
    name, username or student number, accents and Turkish i's folded), `state`, `lesson`
    (repeatable), `student` (repeatable ids: the students behind an insight group), `sort`
    (student, progress, activity or lesson:<slug>),
    `order` (asc or desc), `page`, `expand` (a lesson shown one column per item),
    `density` (comfortable or compact: app/classes/reports/density.py, remembered)."""
    grid = await build_grid(session=session, class_id=class_id)
    remembered = request.cookies.get(grid_density.COOKIE)
    shown_density = grid_density.chosen(density, remembered)
    chosen = [slug for slug in (lesson or [])[:200] if len(slug) <= 64]
    view = view_grid(
        grid,
        search=q,
        state=state,
        lessons=chosen,
        sort=sort,
        descending=order == "desc",
        page=page,
        # Compact: every student on one page.
        per_page=PER_PAGE if shown_density == "comfortable" else max(1, len(grid.students)),
        students=set((student or [])[:1000]),
    )
    params = {
        "q": q,
        "state": state,
        "lesson": chosen,
        "student": (student or [])[:1000],
        "sort": sort,
        "order": order,
        "expand": expand,
    }
    expanded = (
        await expand_lesson(session=session, class_id=class_id, slug=expand)
        if any(lesson.slug == expand for lesson in view.lessons)
        else None
    )
    response = render(
        request,
        "classes/grid.html",
        {
            "classroom": classroom,
            "grid": grid,
            "view": view,
            "density": shown_density,
            "cell_html": CellWriter(class_id=class_id, compact=shown_density == "compact"),
            "expanded": expanded,
            "params": params,
            "link": _link_maker(request.url.path, params),
            "now": utcnow(),
            "filter_labels": FILTER_LABELS,
            "states": STATES,
            **state_context(),
        },
    )
    grid_density.remember(response, density, shown_density, remembered)
    return response


@router.get("/classes/{class_id}/students/{student_id}/lessons/{lesson_slug}")
async def drill_down_page(
    student_id: StudentId,
    lesson_slug: LessonSlug,
    request: Request,
    classroom: TeacherClass,
    session: SessionDep,
    exercise: Annotated[str, Query(max_length=200)] = "",
    verdict: Annotated[str, Query(max_length=40)] = "",
    a: DbIdQuery = None,
    b: DbIdQuery = None,
) -> Response:
    """The timeline may be narrowed by query parameters (a form that needs no script):
    `exercise` (an exercise's id) and `verdict` (a graded submission's verdict); `a` and
    `b` (two submission ids) compare those two attempts' code."""
    return await _drill_down(
        request,
        session,
        classroom,
        student_id=student_id,
        lesson_slug=lesson_slug,
        exercise=exercise,
        verdict=verdict,
        compared=(a, b),
    )


async def _drill_down(
    request: Request,
    session: SessionDep,
    classroom: Classroom,
    *,
    student_id: int,
    lesson_slug: str,
    exercise: str = "",
    verdict: str = "",
    compared: tuple[int | None, int | None] = (None, None),
    comment_error: str = "",
    comment_value: str = "",
    comment_for: int | None = None,
    extension_error: str = "",
    extension_value: str = "",
    status_code: int = 200,
) -> Response:
    class_id = classroom.id
    student = await class_student(session=session, class_id=class_id, student_id=student_id)
    lesson = await catalog.live_lesson(session=session, slug=lesson_slug)
    if lesson is None:
        raise not_found("Lesson")
    lessons, assigned = await lesson_columns(session=session, class_id=class_id)
    column = pick_lesson(lessons, assigned, slug=lesson.slug, title=lesson.title)
    cell = await class_cell(
        session=session, class_id=class_id, student_id=student.id, lesson=column
    )
    events = await lesson_events(session=session, student_id=student.id, lesson_slug=lesson.slug)
    exercises = exercises_in(events)
    # A choice the list does not offer (a stale or crafted link) shows everything.
    exercise = exercise if any(e.id == exercise for e in exercises) else ""
    verdict = verdict if verdict in set(Verdict) else ""
    attempts = attempts_in(events)
    return render(
        request,
        "classes/drilldown.html",
        {
            "classroom": classroom,
            "student": student,
            "lesson": lesson,
            "due_at": column.due_at,
            "assigned": assigned and any(g.slug == lesson.slug for g in lessons),
            "policy": column.policy,
            "cell": cell,
            "extension_error": extension_error,
            "extension_value": extension_value,
            "events": events,
            "shown": collapse_repeats(filter_events(events, exercise=exercise, verdict=verdict)),
            "summary": await summarize(
                session=session, lesson_slug=lesson.slug, events=events, language=current_language()
            ),
            "spent_label": spent_label,
            "attempts": attempts,
            "previous_attempt": previous_attempts(attempts),
            "comparison": compare(attempts, *compared),
            "comments": await comments_on(session=session, submission_ids=[a.id for a in attempts]),
            "comment_error": comment_error,
            "comment_value": comment_value,
            "comment_for": comment_for,
            "neighbours": await neighbours(
                session=session, class_id=class_id, student_id=student.id
            ),
            "exercises": exercises,
            "verdicts": list(Verdict),
            "chosen": {"exercise": exercise, "verdict": verdict},
            "lessons": lessons,
            "flash": take_flash(request),
            "now": utcnow(),
            **state_context(),
        },
        status_code=status_code,
    )


@router.post("/classes/{class_id}/students/{student_id}/lessons/{lesson_slug}/extension")
async def extension_form(
    class_id: ClassId,
    student_id: StudentId,
    lesson_slug: LessonSlug,
    request: Request,
    classroom: TeacherClass,
    session: SessionDep,
    due_date: Annotated[str, Form()] = "",
) -> Response:
    """Give this student a due date of their own on the assignment (or move it)."""
    student = await class_student(session=session, class_id=class_id, student_id=student_id)
    error = ""
    try:
        due = parse_due(due_date)
        if due is None:
            error = gettext("Extended due date: pick a date.")
    except InvalidDueDate as exc:
        error = gettext("Extended due date: %(why)s") % {"why": gettext(str(exc))}
    if not error and due is not None:
        if await service.set_extension(
            session=session,
            class_id=class_id,
            lesson_slug=lesson_slug,
            student_id=student_id,
            due_at=due,
        ):
            flash(
                request,
                gettext("%(name)s's due date is now %(date)s.")
                % {"name": student.display_name, "date": due.strftime("%Y-%m-%d %H:%M UTC")},
            )
            return see_other(request.url.path.removesuffix("/extension"))
        raise not_found("Assignment")
    return await _drill_down(
        request,
        session,
        classroom,
        student_id=student_id,
        lesson_slug=lesson_slug,
        extension_error=error,
        extension_value=due_date,
        status_code=status.HTTP_422_UNPROCESSABLE_CONTENT,
    )


@router.post("/classes/{class_id}/students/{student_id}/lessons/{lesson_slug}/comments")
async def comment_form(
    class_id: ClassId,
    student_id: StudentId,
    lesson_slug: LessonSlug,
    request: Request,
    classroom: TeacherClass,
    session: SessionDep,
    user: OptionalUser,
    submission_id: Annotated[str, Form()] = "",
    text: Annotated[str, Form()] = "",
) -> Response:
    """A comment on one attempt, which the student then sees beside it."""
    assert user is not None  # TeacherClass sent anyone else away
    await class_student(session=session, class_id=class_id, student_id=student_id)
    # Digits in ASCII only (int() also reads '²' and other scripts' digits) and in the
    # database's range: anything else names no attempt.
    target = int(submission_id) if submission_id.isascii() and submission_id.isdigit() else None
    if target is not None and not 0 < target <= MAX_ID:
        target = None
    try:
        await add_comment(
            session=session,
            teacher_id=user.id,  # the owner or a co-teacher: whoever wrote it
            student_id=student_id,
            lesson_slug=lesson_slug,
            submission_id=target or 0,
            text=text,
        )
    except CommentRefused as exc:
        return await _drill_down(
            request,
            session,
            classroom,
            student_id=student_id,
            lesson_slug=lesson_slug,
            comment_error=gettext(str(exc)) % exc.values,
            comment_value=text,
            comment_for=target,
            status_code=status.HTTP_422_UNPROCESSABLE_CONTENT,
        )
    flash(request, gettext("Comment saved: the student sees it beside that attempt."))
    return see_other(f"{request.url.path.removesuffix('/comments')}#submission-{target}")


@router.post(
    "/classes/{class_id}/students/{student_id}/lessons/{lesson_slug}/extension/remove",
    dependencies=[TEACHER_OF_THE_CLASS],
)
async def remove_extension_form(
    class_id: ClassId,
    student_id: StudentId,
    lesson_slug: LessonSlug,
    request: Request,
    session: SessionDep,
) -> Response:
    student = await class_student(session=session, class_id=class_id, student_id=student_id)
    await service.remove_extension(
        session=session, class_id=class_id, lesson_slug=lesson_slug, student_id=student_id
    )
    flash(
        request,
        gettext("%(name)s is back on the class's due date.") % {"name": student.display_name},
    )
    return see_other(request.url.path.removesuffix("/extension/remove"))


@router.get("/classes/{class_id}/insight")
async def insight_page(
    request: Request,
    classroom: TeacherClass,
    session: SessionDep,
    lesson: Annotated[str | None, Query(max_length=64)] = None,
) -> Response:
    return await render_insight(request, session, classroom, lesson)


async def render_insight(
    request: Request,
    session: SessionDep,
    classroom: Classroom,
    lesson: str | None,
    *,
    hint_form: dict[str, str] | None = None,
    status_code: int = status.HTTP_200_OK,
) -> Response:
    """The insight page; `hint_form`: a hint not saved (cluster, text, error), shown again
    in its form (app/classes/output_hint_pages.py)."""
    grid = await build_grid(session=session, class_id=classroom.id, states_only=True)
    result = await build_insight(session=session, class_id=classroom.id, grid=grid, lesson=lesson)
    return render(
        request,
        "classes/insight.html",
        {
            "classroom": classroom,
            "grid": grid,
            "insight": result,
            "names": {s.id: s.display_name for s in grid.students},
            "selected": next((g for g in grid.lessons if g.slug == result.lesson), None),
            "state_labels": INSIGHT_LABELS,
            "state_symbols": INSIGHT_SYMBOLS,
            "flash": take_flash(request),
            "hint_form": hint_form or {},
        },
        status_code=status_code,
    )


@router.get("/classes/{class_id}/attention")
async def attention_page(
    class_id: ClassId,
    request: Request,
    classroom: TeacherClass,
    session: SessionDep,
    failed_attempts: FailedAttempts = 3,
    idle_days: IdleDays = 7,
    due_within_days: DueWithinDays = 3,
) -> Response:
    """Who is stuck or idle, with the item or lesson and a link to their work."""
    now = utcnow()  # one instant for the grid's states and the idle check
    grid = await build_grid(session=session, class_id=class_id, now=now)
    thresholds = Thresholds(failed_attempts, idle_days, due_within_days)
    flagged = await needs_attention(
        session=session, class_id=class_id, grid=grid, thresholds=thresholds, now=now
    )
    return render(
        request,
        "classes/attention.html",
        {
            "classroom": classroom,
            "grid": grid,
            "flagged": flagged,
            "thresholds": thresholds,
            "now": now,
        },
    )
