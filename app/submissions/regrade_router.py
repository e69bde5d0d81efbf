"""Regrades over HTTP (teachers): request one, preview its flips, apply or discard it."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fastapi import APIRouter, BackgroundTasks, Request, status
from pydantic import BaseModel, Field

from app.auth.dependencies import Teacher
from app.db import SessionDep
from app.errors import conflict, not_found
from app.ids import DbId
from app.lessons.catalog import live_exercise
from app.models import Regrade, RegradeStatus
from app.submissions import regrade as regrades

router = APIRouter(tags=["regrades"])
CONFLICT: dict[int | str, dict[str, Any]] = {
    409: {"description": "The regrade is not ready, or the exercise changed since"}
}


class RegradeIn(BaseModel):
    reason: str = Field(
        default="Requested by a teacher.",
        min_length=1,
        max_length=200,
        description="Why, as the preview shows it.",
    )


class StudentOut(BaseModel):
    id: int
    username: str


class ClassFlipsOut(BaseModel):
    class_id: int
    name: str
    to_failed: list[StudentOut] = Field(description="Passed before, would fail now.")
    to_passed: list[StudentOut] = Field(description="Failed before, would pass now.")


class RegradeOut(BaseModel):
    id: int
    exercise_id: str
    reason: str
    requested_by: int | None = Field(description="Null when a content sync made it.")
    status: RegradeStatus
    total: int = Field(description="Stored submissions graded again.")
    graded: int
    errors: int = Field(description="Not graded again (platform faults): these keep theirs.")
    changed: int = Field(description="Submissions whose verdict would change.")
    to_failed: int = Field(description="Students, in all classes, who would fail now.")
    to_passed: int = Field(description="Students, in all classes, who would pass now.")
    classes: list[ClassFlipsOut] = Field(description="Per class you own, who would flip.")
    created_at: datetime
    ready_at: datetime | None
    applied_at: datetime | None


async def regrade_out(*, session: SessionDep, regrade: Regrade, teacher_id: int) -> RegradeOut:
    seen = await regrades.preview(session=session, regrade=regrade, teacher_id=teacher_id)
    return RegradeOut(
        id=regrade.id,
        exercise_id=regrade.exercise_id,
        reason=regrade.reason,
        requested_by=regrade.requested_by,
        status=regrade.status,
        total=regrade.total,
        graded=seen.graded,
        errors=seen.errors,
        changed=seen.changed,
        to_failed=seen.to_failed,
        to_passed=seen.to_passed,
        classes=[
            ClassFlipsOut(
                class_id=flips.class_id,
                name=flips.name,
                to_failed=[StudentOut(id=s.id, username=s.username) for s in flips.to_failed],
                to_passed=[StudentOut(id=s.id, username=s.username) for s in flips.to_passed],
            )
            for flips in seen.classes
        ],
        created_at=regrade.created_at,
        ready_at=regrade.ready_at,
        applied_at=regrade.applied_at,
    )


async def _regrade(session: SessionDep, regrade_id: int) -> Regrade:
    regrade = await regrades.get_regrade(session=session, regrade_id=regrade_id)
    if regrade is None:
        raise not_found("Regrade")
    return regrade


@router.post("/api/exercises/{exercise_id}/regrades", status_code=status.HTTP_202_ACCEPTED)
async def request_regrade(
    exercise_id: str,
    body: RegradeIn,
    request: Request,
    background: BackgroundTasks,
    teacher: Teacher,
    session: SessionDep,
) -> RegradeOut:
    """Grade every graded submission of the exercise again, in the background behind live
    submissions. Nothing changes until the regrade is applied."""
    exercise = await live_exercise(session=session, exercise_id=exercise_id)
    if exercise is None:
        raise not_found("Exercise")
    regrade = await regrades.request_regrade(
        session=session, exercise=exercise, requested_by=teacher.id, reason=body.reason
    )
    background.add_task(
        regrades.wake_graders, request.app.state
    )  # once the unit of work has committed
    return await regrade_out(session=session, regrade=regrade, teacher_id=teacher.id)


@router.get("/api/exercises/{exercise_id}/regrades")
async def list_regrades(
    exercise_id: str, teacher: Teacher, session: SessionDep
) -> list[RegradeOut]:
    """The exercise's regrades, newest first (at most 50)."""
    if await live_exercise(session=session, exercise_id=exercise_id) is None:
        raise not_found("Exercise")
    return [
        await regrade_out(session=session, regrade=regrade, teacher_id=teacher.id)
        for regrade in await regrades.list_regrades(session=session, exercise_id=exercise_id)
    ]


@router.get("/api/regrades/{regrade_id}")
async def get_regrade(regrade_id: DbId, teacher: Teacher, session: SessionDep) -> RegradeOut:
    """Progress and the preview: per class you own, the students whose result would flip."""
    regrade = await _regrade(session, regrade_id)
    return await regrade_out(session=session, regrade=regrade, teacher_id=teacher.id)


@router.post("/api/regrades/{regrade_id}/apply", responses=CONFLICT)
async def apply_regrade(regrade_id: DbId, teacher: Teacher, session: SessionDep) -> RegradeOut:
    """Record the new runs beside the old ones and take the new verdicts (progress follows).
    409 unless the regrade is ready and the exercise is still the version it graded."""
    regrade = await _regrade(session, regrade_id)
    try:
        await regrades.apply(session=session, regrade=regrade, user_id=teacher.id)
    except regrades.RegradeConflict as exc:
        raise conflict(str(exc)) from None
    return await regrade_out(session=session, regrade=regrade, teacher_id=teacher.id)


@router.post("/api/regrades/{regrade_id}/discard", responses=CONFLICT)
async def discard_regrade(regrade_id: DbId, teacher: Teacher, session: SessionDep) -> RegradeOut:
    """Drop a regrade that was not applied; 409 once it is applied or discarded."""
    regrade = await _regrade(session, regrade_id)
    try:
        await regrades.discard(session=session, regrade=regrade)
    except regrades.RegradeConflict as exc:
        raise conflict(str(exc)) from None
    return await regrade_out(session=session, regrade=regrade, teacher_id=teacher.id)
