"""Regrade pages under a class (teachers): the exercise regrades, asking for one, and one
regrade's preview of whose result would flip in this class, with Apply and Discard. Plain
forms that redirect (303), as the other class pages."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, BackgroundTasks, Form, Request
from fastapi.responses import Response
from sqlalchemy import select

from app.auth.dependencies import OptionalUser
from app.classes.access import ClassId, TeacherClass
from app.db import SessionDep
from app.errors import not_found
from app.i18n import N_, gettext
from app.ids import DbId
from app.lessons.catalog import is_live, live_exercise
from app.models import Classroom, Exercise, RegradeStatus, User
from app.submissions import regrade as regrades
from app.web.flash import flash, take_flash
from app.web.redirects import see_other
from app.web.templating import render

router = APIRouter(include_in_schema=False)
STATUS_LABELS = {
    RegradeStatus.PENDING: N_("Waiting"),
    RegradeStatus.RUNNING: N_("Grading"),
    RegradeStatus.READY: N_("Ready"),
    RegradeStatus.APPLIED: N_("Applied"),
    RegradeStatus.DISCARDED: N_("Discarded"),
}
SYNC_REASON = N_("The exercise's expected output, comparison or limits changed (content sync).")
REASON_MAX = 200


async def _exercise_titles(session: SessionDep) -> dict[str, str]:
    rows = await session.execute(
        select(Exercise.id, Exercise.title)
        .where(is_live(Exercise))
        .order_by(Exercise.lesson_slug, Exercise.position)
    )
    return {ident: title for ident, title in rows.all()}


def _reason(reason: str, requested_by: int | None) -> str:
    return gettext(SYNC_REASON) if requested_by is None else reason


async def _list_page(
    request: Request,
    session: SessionDep,
    classroom: Classroom,
    *,
    error: str | None = None,
    values: dict[str, str] | None = None,
    status_code: int = 200,
) -> Response:
    context: dict[str, Any] = {
        "classroom": classroom,
        "regrades": await regrades.list_regrades(session=session),
        "exercises": await _exercise_titles(session),
        "status_labels": STATUS_LABELS,
        "reason_of": _reason,
        "error": error,
        "values": values or {},
        "flash": take_flash(request),
    }
    return render(request, "classes/regrades.html", context, status_code=status_code)


@router.get("/classes/{class_id}/regrades")
async def regrades_page(request: Request, classroom: TeacherClass, session: SessionDep) -> Response:
    return await _list_page(request, session, classroom)


@router.post("/classes/{class_id}/regrades")
async def request_form(
    request: Request,
    classroom: TeacherClass,
    background: BackgroundTasks,
    session: SessionDep,
    user: OptionalUser,
    exercise_id: Annotated[str, Form()] = "",
    reason: Annotated[str, Form()] = "",
) -> Response:
    assert user is not None
    values = {"exercise_id": exercise_id, "reason": reason}
    exercise = await live_exercise(session=session, exercise_id=exercise_id)
    if exercise is None:
        error = gettext("Exercise: pick one from the list.")
        return await _list_page(request, session, classroom, error=error, values=values,
                                status_code=422)  # fmt: skip
    if len(reason.strip()) > REASON_MAX:
        error = gettext("Why: at most %(max)s characters.") % {"max": REASON_MAX}
        return await _list_page(request, session, classroom, error=error, values=values,
                                status_code=422)  # fmt: skip
    made = await regrades.request_regrade(
        session=session,
        exercise=exercise,
        requested_by=user.id,
        reason=reason.strip() or "Requested by a teacher.",
    )
    background.add_task(regrades.wake_graders, request.app.state)
    return see_other(f"/classes/{classroom.id}/regrades/{made.id}")


@router.get("/classes/{class_id}/regrades/{regrade_id}")
async def regrade_page(
    class_id: ClassId,
    regrade_id: DbId,
    request: Request,
    classroom: TeacherClass,
    session: SessionDep,
    user: OptionalUser,
) -> Response:
    assert user is not None  # TeacherClass sent anyone else away
    regrade = await regrades.get_regrade(session=session, regrade_id=regrade_id)
    if regrade is None:
        raise not_found("Regrade")
    # The classes this teacher runs (a co-teacher does not see the owner's other classes).
    seen = await regrades.preview(session=session, regrade=regrade, teacher_id=user.id)
    exercise = await session.get_one(Exercise, regrade.exercise_id)
    in_class = next((flips for flips in seen.classes if flips.class_id == classroom.id), None)
    return render(
        request,
        "classes/regrade.html",
        {
            "classroom": classroom,
            "regrade": regrade,
            "exercise": exercise,
            "seen": seen,
            "in_class": in_class,
            "reason": _reason(regrade.reason, regrade.requested_by),
            "still_grading": regrade.status in regrades.UNFINISHED,
            "can_apply": regrade.status == RegradeStatus.READY,
            "can_discard": regrade.status in regrades.OPEN,
            "applied": regrade.status == RegradeStatus.APPLIED,
            "status_labels": STATUS_LABELS,
            "flash": take_flash(request),
        },
    )


async def _act(
    request: Request,
    session: SessionDep,
    user: User | None,
    classroom: Classroom,
    regrade_id: int,
    *,
    applying: bool,
) -> Response:
    assert user is not None  # the class's teacher (TeacherClass)
    regrade = await regrades.get_regrade(session=session, regrade_id=regrade_id)
    if regrade is None:
        raise not_found("Regrade")
    try:
        if applying:
            await regrades.apply(session=session, regrade=regrade, user_id=user.id)
            message = gettext("Applied: the new results are recorded beside the old ones.")
        else:
            await regrades.discard(session=session, regrade=regrade)
            message = gettext("Discarded: nothing changed.")
        flash(request, message)
    except regrades.RegradeConflict:
        refused = gettext(
            "This regrade cannot be changed: it is not ready, is done with already, or the"
            " exercise changed since. Ask for a new one."
        )
        flash(request, refused, kind="error")
    return see_other(f"/classes/{classroom.id}/regrades/{regrade_id}")


@router.post("/classes/{class_id}/regrades/{regrade_id}/apply")
async def apply_form(
    regrade_id: DbId,
    request: Request,
    session: SessionDep,
    user: OptionalUser,
    classroom: TeacherClass,
) -> Response:
    return await _act(request, session, user, classroom, regrade_id, applying=True)


@router.post("/classes/{class_id}/regrades/{regrade_id}/discard")
async def discard_form(
    regrade_id: DbId,
    request: Request,
    session: SessionDep,
    user: OptionalUser,
    classroom: TeacherClass,
) -> Response:
    return await _act(request, session, user, classroom, regrade_id, applying=False)
