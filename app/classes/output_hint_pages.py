"""The insight page's hint forms (teachers): write, edit or delete the class's hint on one
wrong-output group of an exercise. Plain forms that redirect (303) back to the group; a hint
refused is shown again in its form with the reason, so nothing typed is lost."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, Form, Request, status
from fastapi.responses import RedirectResponse, Response

from app.auth.dependencies import OptionalUser
from app.classes import output_hints
from app.classes.access import TEACHER_OF_THE_CLASS, ClassId, TeacherClass
from app.classes.output_hints import HintRefused
from app.classes.report_pages import render_insight
from app.db import SessionDep
from app.i18n import N_, gettext
from app.web.flash import flash

router = APIRouter(include_in_schema=False)
Field = Annotated[str, Form(max_length=200)]
SAVED = N_(
    "Hint saved: students of this class whose output falls in this group see it beside the diff."
)
DELETED = N_("Hint deleted.")
ALREADY_GONE = N_("That hint was already deleted.")


def _back(class_id: int, lesson: str, cluster: str) -> RedirectResponse:
    target = f"/classes/{class_id}/insight?lesson={quote(lesson)}#hint-{quote(cluster)}"
    return RedirectResponse(target, status_code=status.HTTP_303_SEE_OTHER)


@router.post("/classes/{class_id}/insight/hints")
async def save_hint_form(
    class_id: ClassId,
    request: Request,
    classroom: TeacherClass,
    session: SessionDep,
    user: OptionalUser,
    exercise_id: Field,
    cluster: Field,
    text: Annotated[str, Form(max_length=20_000)] = "",
    lesson: Field = "",
) -> Response:
    assert user is not None  # TeacherClass sent anyone else away
    try:
        await output_hints.save_hint(
            session=session,
            class_id=class_id,
            teacher_id=user.id,
            exercise_id=exercise_id,
            cluster=cluster,
            text=text,
            sample_output=await output_hints.sample_of(
                session=session, class_id=class_id, exercise_id=exercise_id, cluster=cluster
            ),
        )
    except HintRefused as exc:
        form = {"cluster": cluster, "text": text, "error": gettext(str(exc)) % exc.values}
        return await render_insight(
            request,
            session,
            classroom,
            lesson or None,
            hint_form=form,
            status_code=status.HTTP_422_UNPROCESSABLE_CONTENT,
        )
    flash(request, gettext(SAVED))
    return _back(class_id, lesson, cluster)


@router.post("/classes/{class_id}/insight/hints/delete", dependencies=[TEACHER_OF_THE_CLASS])
async def delete_hint_form(
    class_id: ClassId,
    request: Request,
    session: SessionDep,
    exercise_id: Field,
    cluster: Field,
    lesson: Field = "",
) -> Response:
    deleted = await output_hints.delete_hint(
        session=session, class_id=class_id, exercise_id=exercise_id, cluster=cluster
    )
    message = DELETED if deleted else ALREADY_GONE
    flash(request, gettext(message))
    return _back(class_id, lesson, cluster)
