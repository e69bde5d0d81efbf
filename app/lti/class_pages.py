"""A class made from an LMS course: its roster synced from the course (Names and Role
Provisioning Services), by the class page's button or through the JSON API. Both take the
CSRF token like every other form and API call of a signed-in teacher."""

from __future__ import annotations

import httpx
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response
from sqlalchemy.ext.asyncio import AsyncSession

from app.auth.dependencies import Teacher
from app.classes.access import ClassId, TeacherClass, own_class
from app.db import SessionDep
from app.i18n import gettext, ngettext
from app.lti import service
from app.lti.tokens import REQUEST_TIMEOUT_S
from app.models import utcnow
from app.web.flash import flash

router = APIRouter()


async def _sync(session: AsyncSession, class_id: int) -> int:
    async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT_S) as client:
        return await service.sync_roster(
            session=session, class_id=class_id, client=client, now=utcnow()
        )


def _reason(refusal: service.RosterUnavailable) -> str:
    reason = gettext(refusal.message)
    return reason % refusal.fields if refusal.fields else reason


@router.post("/classes/{class_id}/lti-roster", include_in_schema=False)
async def sync_roster_form(
    request: Request, classroom: TeacherClass, session: SessionDep
) -> Response:
    try:
        joined = await _sync(session, classroom.id)
    except service.RosterUnavailable as refusal:
        flash(request, _reason(refusal), kind="error")
    else:
        message = ngettext(
            "Roster synced from the course: %(num)d student joined.",
            "Roster synced from the course: %(num)d students joined.",
            joined,
        ) % {"num": joined}
        flash(request, message)  # shown by the class page (app/classes/pages.py)
    return RedirectResponse(f"/classes/{classroom.id}", status_code=303)


@router.post("/api/classes/{class_id}/lti-roster", tags=["classes"])
async def sync_roster(class_id: ClassId, session: SessionDep, teacher: Teacher) -> JSONResponse:
    """Sync the class's roster from its LMS course (LTI Names and Role Provisioning
    Services): `{"joined": n}`; 409 with the reason when the class has no roster at an LMS
    or the LMS did not give it."""
    classroom = await own_class(session=session, teacher=teacher, class_id=class_id)
    try:
        joined = await _sync(session, classroom.id)
    except service.RosterUnavailable as refusal:
        return JSONResponse({"detail": str(refusal)}, status_code=409)
    return JSONResponse({"joined": joined})
