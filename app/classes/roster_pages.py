"""Roster pages under a class (teachers): importing students from a CSV (preview, then
confirm), a student's number, and the undo of the roster's actions (a removal, a new join
code) from the flash message. Plain forms, as the other class pages."""

from __future__ import annotations

import csv
import io
from datetime import datetime
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, File, Form, Request, UploadFile, status
from fastapi.responses import Response
from sqlalchemy.exc import IntegrityError

from app.auth import password_links
from app.classes import roster_import, service
from app.classes.access import (
    TEACHER_OF_THE_CLASS,
    ClassId,
    StudentId,
    TeacherClass,
    class_student,
)
from app.classes.reports.export import _text
from app.classes.roster_import import Action, ImportRefused, Plan
from app.db import SessionDep
from app.i18n import N_, gettext
from app.models import Classroom, utcnow
from app.urls import public_url
from app.web.flash import flash
from app.web.redirects import see_other
from app.web.templating import render

router = APIRouter(include_in_schema=False)
CHANGED_MEANWHILE = N_(
    "An account was made with one of these usernames meanwhile; nothing was imported."
    " Preview the list again."
)


# --- import -----------------------------------------------------------------------------


def _import_page(
    request: Request,
    classroom: Classroom,
    *,
    text: str = "",
    plan: Plan | None = None,
    error: str = "",
    created: list[dict[str, str]] | None = None,
    status_code: int = 200,
) -> Response:
    context: dict[str, Any] = {
        "classroom": classroom,
        "text": text,
        "plan": plan,
        "error": error,
        "created": created,
        "actions": Action,
        "max_rows": roster_import.MAX_ROWS,
        "link_days": password_links.LINK_DAYS,
    }
    if created:
        context["links_csv"] = "data:text/csv;charset=utf-8," + quote(_links_csv(created))
    return render(request, "classes/import.html", context, status_code=status_code)


def _links_csv(created: list[dict[str, str]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([gettext("Name"), gettext("Number"), gettext("Username"), gettext("Link")])
    for row in created:
        # Names and numbers are the teacher's text: never read as formulas (CSV injection).
        writer.writerow([_text(row["name"]), _text(row["number"]), row["username"], row["link"]])
    return "\ufeff" + out.getvalue()  # the BOM: Excel then reads the names as UTF-8


@router.get("/classes/{class_id}/import")
async def import_form(request: Request, classroom: TeacherClass) -> Response:
    return _import_page(request, classroom)


async def _read_input(text: str, file: UploadFile | None) -> str:
    """The pasted text, or the chosen file's (a file wins when both are given)."""
    if file is not None and file.filename:
        data = await file.read(roster_import.MAX_BYTES + 1)
        if data.strip():
            return roster_import.decode(data)
    return text


async def _plan_or_page(
    request: Request, session: SessionDep, classroom: Classroom, text: str
) -> Plan | Response:
    try:
        return await roster_import.plan_import(session=session, class_id=classroom.id, text=text)
    except ImportRefused as exc:
        return _import_page(
            request,
            classroom,
            text=text,
            error=gettext(str(exc)),
            status_code=status.HTTP_422_UNPROCESSABLE_CONTENT,
        )


@router.post("/classes/{class_id}/import")
async def import_preview(
    request: Request,
    classroom: TeacherClass,
    session: SessionDep,
    text: Annotated[str, Form()] = "",
    file: Annotated[UploadFile | None, File()] = None,
) -> Response:
    """The preview: what each line would do; nothing is changed yet."""
    text = await _read_input(text, file)
    plan = await _plan_or_page(request, session, classroom, text)
    if isinstance(plan, Response):
        return plan
    return _import_page(
        request,
        classroom,
        text=text,
        plan=plan,
        status_code=status.HTTP_422_UNPROCESSABLE_CONTENT if plan.refused else 200,
    )


@router.post("/classes/{class_id}/import/confirm")
async def import_confirm(
    class_id: ClassId,
    request: Request,
    classroom: TeacherClass,
    session: SessionDep,
    text: Annotated[str, Form()] = "",
) -> Response:
    """Carry out the previewed list, all of it or (if a line is refused now) nothing: the
    preview again, saying why."""
    plan = await _plan_or_page(request, session, classroom, text)
    if isinstance(plan, Response):
        return plan
    if plan.refused:
        return _import_page(
            request,
            classroom,
            text=text,
            plan=plan,
            status_code=status.HTTP_422_UNPROCESSABLE_CONTENT,
        )
    try:
        async with session.begin_nested():
            created = await roster_import.carry_out(session=session, class_id=class_id, plan=plan)
    except IntegrityError:
        # A username taken between this plan and its insert (another import, a sign-up):
        # nothing of this list was kept; the next preview picks other names.
        return _import_page(
            request,
            classroom,
            text=text,
            error=gettext(CHANGED_MEANWHILE),
            status_code=status.HTTP_409_CONFLICT,
        )
    return _import_page(
        request,
        classroom,
        plan=plan,
        created=[
            {
                "name": c.name,
                "number": c.number,
                "username": c.username,
                "link": public_url(request, c.link),
            }
            for c in created
        ],
    )


@router.post("/classes/{class_id}/students/{student_id}/password-link")
async def new_password_link(
    class_id: ClassId,
    student_id: StudentId,
    request: Request,
    classroom: TeacherClass,
    session: SessionDep,
) -> Response:
    """A new set-password link for an imported student who has not used theirs (lost, or
    expired); their older links stop working. Never for an account that has a password:
    a teacher cannot take a student's account over."""
    student = await class_student(session=session, class_id=class_id, student_id=student_id)
    if password_links.has_password(student):
        flash(
            request,
            gettext("%(name)s has chosen a password already: no link is needed.")
            % {"name": student.display_name},
            kind="error",
        )
        return see_other(f"/classes/{class_id}#roster")
    token, _ = await password_links.issue_link(session=session, user_id=student.id)
    return render(
        request,
        "classes/password_link.html",
        {
            "classroom": classroom,
            "student": student,
            "link": public_url(request, password_links.link_path(token)),
            "link_days": password_links.LINK_DAYS,
        },
    )


# --- a student's number -----------------------------------------------------------------


@router.post(
    "/classes/{class_id}/students/{student_id}/number", dependencies=[TEACHER_OF_THE_CLASS]
)
async def number_form(
    class_id: ClassId,
    student_id: StudentId,
    request: Request,
    session: SessionDep,
    student_number: Annotated[str, Form()] = "",
) -> Response:
    student = await class_student(session=session, class_id=class_id, student_id=student_id)
    number = " ".join(student_number.split())
    if len(number) > service.STUDENT_NUMBER_MAX:
        flash(
            request,
            gettext("Student number: use at most %(max)s characters (this has %(count)s).")
            % {"max": service.STUDENT_NUMBER_MAX, "count": len(number)},
            kind="error",
        )
        return see_other(f"/classes/{class_id}#roster")
    await service.set_student_number(
        session=session, class_id=class_id, student_id=student_id, number=number or None
    )
    flash(
        request,
        gettext("%(name)s's student number is now %(number)s.")
        % {"name": student.display_name, "number": number}
        if number
        else gettext("%(name)s has no student number now.") % {"name": student.display_name},
    )
    return see_other(f"/classes/{class_id}#roster")


# --- undo -------------------------------------------------------------------------------

UNDO_EXPIRED = N_("The time to undo this has passed.")


@router.post(
    "/classes/{class_id}/students/{student_id}/restore", dependencies=[TEACHER_OF_THE_CLASS]
)
async def restore_form(
    class_id: ClassId,
    student_id: StudentId,
    request: Request,
    session: SessionDep,
) -> Response:
    """Undo a removal (within service.UNDO_WINDOW)."""
    if await service.restore_student(session=session, class_id=class_id, student_id=student_id):
        student = await class_student(session=session, class_id=class_id, student_id=student_id)
        flash(request, gettext("%(name)s is back in the class.") % {"name": student.display_name})
    else:
        flash(request, gettext(UNDO_EXPIRED), kind="error")
    return see_other(f"/classes/{class_id}#roster")


@router.get("/classes/{class_id}/join-code")
async def confirm_new_code_page(
    class_id: ClassId, request: Request, classroom: TeacherClass
) -> Response:
    """The confirm step of a new join code (a page: it works without JavaScript)."""
    return render(
        request,
        "classes/confirm.html",
        {
            "classroom": classroom,
            "title": gettext("Make a new join code?"),
            "message": gettext(
                "The code %(code)s and its link stop working at once; students already in"
                " “%(class)s” stay. You can undo this for %(minutes)s minutes."
            )
            % {
                "code": classroom.join_code,
                "class": classroom.name,
                "minutes": int(service.UNDO_WINDOW.total_seconds() // 60),
            },
            "action": f"/classes/{class_id}/join-code",
            "back": f"/classes/{class_id}",
            "confirm_label": gettext("Yes, make a new code"),
        },
    )


@router.post("/classes/{class_id}/join-code/undo")
async def undo_new_code(
    class_id: ClassId, request: Request, classroom: TeacherClass, session: SessionDep
) -> Response:
    """The class's previous join code back (the one the session remembers, for a while)."""
    saved = request.session.pop("class_undo_code", None)
    live = (
        isinstance(saved, dict)
        and saved.get("class_id") == class_id
        and isinstance(saved.get("code"), str)
        and isinstance(saved.get("until"), int | float)
        and datetime.fromtimestamp(saved["until"], utcnow().tzinfo) > utcnow()
    )
    if live and await service.restore_code(
        session=session, classroom=classroom, code=saved["code"]
    ):
        flash(
            request,
            gettext("The join code is %(code)s again.") % {"code": classroom.join_code},
        )
    else:
        flash(request, gettext(UNDO_EXPIRED), kind="error")
    return see_other(f"/classes/{class_id}")
