"""Class pages for teachers (and joining for students), server-rendered, working without
JavaScript: every change is a plain form POST that redirects (303) back to a page. The
class's management: creating, joining, renaming, archiving, the join code, removing a
student, assignments and due dates. The report pages are app/classes/report_pages.py."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Form, HTTPException, Query, Request, status
from fastapi.responses import Response

from app import limits
from app.auth.dependencies import OptionalUser, client_address
from app.classes import guesses, service
from app.classes.access import (
    TEACHER_OF_THE_CLASS,
    ClassId,
    LessonSlug,
    StudentId,
    TeacherClass,
    class_student,
    require_student,
    require_teacher,
)
from app.classes.home import student_home
from app.classes.reports.grid import (
    state_context,
)
from app.classes.router import join_url
from app.classes.schemas import InvalidDueDate, parse_due
from app.db import SessionDep, get_database
from app.errors import not_found
from app.i18n import N_, gettext
from app.lessons import catalog
from app.lti import service as lti  # a class made from an LMS course
from app.models import Classroom, Lesson, Role, User, utcnow
from app.web import forms
from app.web.flash import flash, take_flash
from app.web.login import LoginRequired, here
from app.web.redirects import see_other
from app.web.templating import render

router = APIRouter(include_in_schema=False)
NAME_MAX = 100
JOIN_CODE_MAX = 64
PAST_DUE = N_(
    "Due date: %(date)s has passed, so the lesson would count as late at once. Pick a later"
    " date, or tick “Set it anyway”."
)


def _name_error(name: str) -> str | None:
    """Why a class name is refused (the rule of schemas.ClassName), naming the field."""
    return forms.length_error(gettext("Class name"), name.strip(), max_length=NAME_MAX)


# --- the list of classes, creating one, joining one -------------------------------------


async def _classes_page(
    request: Request,
    session: SessionDep,
    user: User,
    *,
    errors: dict[str, str] | None = None,
    values: dict[str, str] | None = None,
    status_code: int = 200,
) -> Response:
    context: dict[str, Any] = {
        "errors": errors or {},
        "values": values or {},
        "flash": take_flash(request),
        "now": utcnow(),
        **state_context(),
    }
    if user.role == Role.TEACHER:
        context["teaching"] = await service.teacher_classes(session=session, teacher_id=user.id)
    else:
        context["classes"] = await student_home(session=session, user=user)
    return render(request, "classes/index.html", context, status_code=status_code)


@router.get("/classes")
async def classes_page(request: Request, session: SessionDep, user: OptionalUser) -> Response:
    if user is None:
        raise LoginRequired(here(request))
    return await _classes_page(request, session, user)


@router.post("/classes")
async def create_class_form(
    request: Request,
    session: SessionDep,
    user: OptionalUser,
    name: Annotated[str, Form()] = "",
) -> Response:
    if user is None:
        raise LoginRequired("/classes")
    require_teacher(user)
    if error := _name_error(name):
        return await _classes_page(
            request,
            session,
            user,
            errors={"name": error},
            values={"name": name},
            status_code=status.HTTP_422_UNPROCESSABLE_CONTENT,
        )
    classroom = await service.create_class(session=session, teacher_id=user.id, name=name.strip())
    flash(
        request,
        gettext("Class “%(name)s” created. Share its join code with your students.")
        % {"name": classroom.name},
    )
    return see_other(f"/classes/{classroom.id}")


def _join_refused(request: Request, code: str, message: str, status_code: int) -> Response:
    """The join form again, with what was typed and why it was refused."""
    return render(
        request,
        "classes/join.html",
        {"code": code, "error": message, "classroom": None},
        status_code=status_code,
    )


async def _too_many_guesses(request: Request, user: User, code: str) -> Response | None:
    """The refusal page (429) if this student or address tried too many wrong codes."""
    try:
        await guesses.check_guess(
            database=get_database(request),
            settings=request.app.state.settings,
            student_id=user.id,
            address=client_address(request),
            code=code,
        )
    except limits.LimitReached as exc:
        message = gettext(exc.limit.message) % {"seconds": exc.retry_after_s}
        refused = _join_refused(request, code, message, status.HTTP_429_TOO_MANY_REQUESTS)
        refused.headers["Retry-After"] = str(exc.retry_after_s)
        return refused
    return None


async def _join_or_explain(
    request: Request, session: SessionDep, user: User, code: str
) -> Response:
    require_student(user)
    if error := forms.length_error(gettext("Join code"), code, max_length=JOIN_CODE_MAX):
        return _join_refused(request, code, error, status.HTTP_422_UNPROCESSABLE_CONTENT)
    if (refused := await _too_many_guesses(request, user, code)) is not None:
        return refused
    try:
        classroom = await service.join(session=session, student_id=user.id, code=code)
    except service.JoinRefused as exc:
        return _join_refused(request, code, gettext(exc.message), exc.status_code)
    flash(
        request,
        gettext("You are in “%(name)s”. Its assignments are below.") % {"name": classroom.name},
    )
    return see_other("/#assignments")


@router.post("/join")
async def join_form(
    request: Request,
    session: SessionDep,
    user: OptionalUser,
    join_code: Annotated[str, Form()] = "",
) -> Response:
    if user is None:
        raise LoginRequired("/classes")
    return await _join_or_explain(request, session, user, join_code)


@router.get("/join/{code}")
async def join_page(
    code: LessonSlug, request: Request, session: SessionDep, user: OptionalUser
) -> Response:
    """The join link: asks the student to confirm (a GET never joins; a code no class has
    counts as a guess, app/classes/guesses.py)."""
    if user is None:
        raise LoginRequired(here(request))
    require_student(user)
    if (refused := await _too_many_guesses(request, user, code)) is not None:
        return refused
    classroom = await service.class_for_code(session=session, code=code)
    if classroom is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, service.UNKNOWN_CODE)
    already = await service.member(session=session, class_id=classroom.id, student_id=user.id)
    if classroom.archived and already is None:
        raise HTTPException(status.HTTP_409_CONFLICT, service.ARCHIVED_CLASS)
    return render(
        request,
        "classes/join.html",
        {"code": classroom.join_code, "classroom": classroom, "already": already is not None},
    )


@router.post("/join/{code}")
async def join_link(
    code: LessonSlug, request: Request, session: SessionDep, user: OptionalUser
) -> Response:
    if user is None:
        raise LoginRequired(f"/join/{quote(code)}")
    return await _join_or_explain(request, session, user, code)


# --- one class: settings, roster, assignments -------------------------------------------


async def _class_page(
    request: Request,
    session: SessionDep,
    classroom: Classroom,
    *,
    errors: dict[str, str] | None = None,
    values: dict[str, str] | None = None,
    status_code: int = 200,
    search: str = "",
) -> Response:
    assigned = await service.assignments(session=session, class_id=classroom.id)
    taken = {a.lesson_slug for a in assigned}
    lessons = (await session.scalars(catalog.live(Lesson))).all()
    roster = await service.roster(session=session, class_id=classroom.id, search=search)
    return render(
        request,
        "classes/class.html",
        {
            "classroom": classroom,
            "join_url": join_url(request, classroom.join_code),
            "roster": roster,
            "search": search,
            "roster_total": (
                await service.student_count(session=session, class_id=classroom.id)
                if search
                else len(roster)
            ),
            "undo_minutes": int(service.UNDO_WINDOW.total_seconds() // 60),
            "assignments": assigned,
            "unassigned": [lesson for lesson in lessons if lesson.slug not in taken],
            "errors": errors or {},
            "values": values or {},
            "flash": take_flash(request),
            "now": utcnow(),
            "lti_roster": await lti.roster_state(session=session, class_id=classroom.id),
        },
        status_code=status_code,
    )


@router.get("/classes/{class_id}")
async def class_page(
    request: Request,
    classroom: TeacherClass,
    session: SessionDep,
    q: Annotated[str, Query(max_length=64)] = "",
) -> Response:
    """`q` narrows the roster to the students it finds (name, username or number; accents
    and Turkish i's folded)."""
    return await _class_page(request, session, classroom, search=q)


@router.post("/classes/{class_id}/rename")
async def rename_form(
    class_id: ClassId,
    request: Request,
    classroom: TeacherClass,
    session: SessionDep,
    name: Annotated[str, Form()] = "",
) -> Response:
    if error := _name_error(name):
        return await _class_page(
            request,
            session,
            classroom,
            errors={"name": error},
            values={"name": name},
            status_code=status.HTTP_422_UNPROCESSABLE_CONTENT,
        )
    await service.rename(session=session, classroom=classroom, name=name.strip())
    flash(request, gettext("Class renamed."))
    return see_other(f"/classes/{class_id}")


@router.post("/classes/{class_id}/archive")
async def archive_form(
    class_id: ClassId,
    request: Request,
    classroom: TeacherClass,
    session: SessionDep,
    archived: Annotated[str, Form()] = "1",
) -> Response:
    archive = archived not in ("0", "false", "")
    await service.set_archived(session=session, classroom=classroom, archived=archive)
    flash(
        request,
        gettext("Class archived: nobody can join it now; its progress stays readable.")
        if archive
        else gettext("Class brought back: students can join it again."),
    )
    return see_other(f"/classes/{class_id}")


@router.post("/classes/{class_id}/join-code")
async def regenerate_form(
    class_id: ClassId, request: Request, classroom: TeacherClass, session: SessionDep
) -> Response:
    old_code = await service.regenerate_code(session=session, classroom=classroom)
    flash(
        request,
        gettext("New join code %(code)s; the old code no longer works.")
        % {"code": classroom.join_code},
        undo=f"/classes/{class_id}/join-code/undo",
    )
    # What "Undo" brings back, in the signed session cookie: the teacher's own old code.
    request.session["class_undo_code"] = {
        "class_id": class_id,
        "code": old_code,
        "until": (utcnow() + service.UNDO_WINDOW).timestamp(),
    }
    return see_other(f"/classes/{class_id}")


def _confirm_page(
    request: Request, classroom: Classroom, *, title: str, message: str, action: str, back: str
) -> Response:
    """The confirm step of a removal: a page (so it works without JavaScript) whose button
    posts the change, and a way back that changes nothing."""
    return render(
        request,
        "classes/confirm.html",
        {
            "classroom": classroom,
            "title": title,
            "message": message,
            "action": action,
            "back": back,
        },
    )


@router.get("/classes/{class_id}/students/{student_id}/remove")
async def confirm_remove_page(
    class_id: ClassId,
    student_id: StudentId,
    request: Request,
    classroom: TeacherClass,
    session: SessionDep,
) -> Response:
    student = await class_student(session=session, class_id=class_id, student_id=student_id)
    return _confirm_page(
        request,
        classroom,
        title=gettext("Remove %(name)s from the class?") % {"name": student.display_name},
        message=gettext(
            "%(name)s leaves “%(class)s”. Their answers and code are kept, and they can join"
            " again with the code."
        )
        % {"name": student.display_name, "class": classroom.name},
        action=f"/classes/{class_id}/students/{student_id}/remove",
        back=f"/classes/{class_id}#roster",
    )


@router.post(
    "/classes/{class_id}/students/{student_id}/remove", dependencies=[TEACHER_OF_THE_CLASS]
)
async def remove_form(
    class_id: ClassId,
    student_id: StudentId,
    request: Request,
    session: SessionDep,
) -> Response:
    student = await class_student(session=session, class_id=class_id, student_id=student_id)
    await service.remove_student(session=session, class_id=class_id, student_id=student_id)
    flash(
        request,
        gettext(
            "%(name)s is no longer in this class. Their work is kept; "
            "they can join again with the code."
        )
        % {"name": student.display_name},
        undo=f"/classes/{class_id}/students/{student_id}/restore",
    )
    return see_other(f"/classes/{class_id}#roster")


@router.post("/classes/{class_id}/assignments")
async def assign_form(
    class_id: ClassId,
    request: Request,
    classroom: TeacherClass,
    session: SessionDep,
    lesson_slug: Annotated[str, Form()] = "",
    due_date: Annotated[str, Form()] = "",
    past_ok: Annotated[str, Form()] = "",
    policy: Annotated[str, Form()] = "",
    late_work: Annotated[str, Form()] = "",
    late_penalty_percent: Annotated[str, Form()] = "",
) -> Response:
    """Assigns a lesson or changes its due date. A date already past is refused unless the
    teacher ticks `past_ok` (it makes the lesson late at once), or keeps the date it has.
    A form that carries the late policy says so with `policy`: then `late_work` (a
    checkbox: absent means late work does not count) and `late_penalty_percent` (0-100)."""
    errors: dict[str, str] = {}
    due = None
    try:
        due = parse_due(due_date)
    except InvalidDueDate as exc:
        errors["due_date"] = gettext(str(exc))
    counts: bool | None = None
    penalty: int | None = None
    if policy:
        counts = bool(late_work)
        text = late_penalty_percent.strip() or "0"
        if text.isdigit() and int(text) in service.PENALTY_RANGE:
            penalty = int(text)
        else:
            errors["late_penalty_percent"] = gettext(
                "Late penalty: give a whole number of percent from 0 to 100."
            )
    assigned = await service.assignments(session=session, class_id=class_id)
    kept = any(a.lesson_slug == lesson_slug and a.due_at == due for a in assigned)
    if due is not None and due < utcnow() and not past_ok and not kept:
        errors["due_date"] = gettext(PAST_DUE) % {"date": due.strftime("%Y-%m-%d")}
    if not errors:
        row = await service.set_assignment(
            session=session,
            class_id=class_id,
            lesson_slug=lesson_slug,
            due_at=due,
            late_work=counts,
            late_penalty_percent=penalty,
        )
        if row is not None:
            flash(request, gettext("“%(title)s” assigned.") % {"title": row.title})
            return see_other(f"/classes/{class_id}#assignments")
        errors["lesson_slug"] = gettext("Choose one of the lessons in the list.")
    return await _class_page(
        request,
        session,
        classroom,
        errors=errors,
        values={
            "lesson_slug": lesson_slug,
            "due_date": due_date,
            "past_ok": past_ok,
            "policy": policy,
            "late_work": late_work,
            "late_penalty_percent": late_penalty_percent,
        },
        status_code=status.HTTP_422_UNPROCESSABLE_CONTENT,
    )


@router.get("/classes/{class_id}/assignments/{lesson_slug}/remove")
async def confirm_unassign_page(
    class_id: ClassId,
    lesson_slug: LessonSlug,
    request: Request,
    classroom: TeacherClass,
    session: SessionDep,
) -> Response:
    assigned = await service.assignments(session=session, class_id=class_id)
    row = next((a for a in assigned if a.lesson_slug == lesson_slug), None)
    if row is None:
        raise not_found("Assignment")
    return _confirm_page(
        request,
        classroom,
        title=gettext("Remove the assignment “%(title)s”?") % {"title": row.title},
        message=gettext(
            "“%(title)s” leaves the students' assignments and the progress grid. Their work"
            " on it is kept; you can assign it again."
        )
        % {"title": row.title},
        action=f"/classes/{class_id}/assignments/{lesson_slug}/remove",
        back=f"/classes/{class_id}#assignments",
    )


@router.post(
    "/classes/{class_id}/assignments/{lesson_slug}/remove", dependencies=[TEACHER_OF_THE_CLASS]
)
async def unassign_form(
    class_id: ClassId,
    lesson_slug: LessonSlug,
    request: Request,
    session: SessionDep,
) -> Response:
    if not await service.remove_assignment(
        session=session, class_id=class_id, lesson_slug=lesson_slug
    ):
        raise not_found("Assignment")
    flash(request, gettext("Assignment removed; the students' work on it is kept."))
    return see_other(f"/classes/{class_id}#assignments")
