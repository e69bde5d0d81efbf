"""Teachers' hints on wrong-output groups over HTTP: list a class's, write or replace one,
delete one. The groups and their keys (`cluster`) are the insight's (GET .../insight)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, status
from fastapi.responses import Response

from app.auth.dependencies import Teacher
from app.classes import output_hints
from app.classes.access import ClassId, own_class
from app.classes.output_hints import HintView
from app.classes.schemas import ClusterHintIn, ClusterHintOut
from app.db import SessionDep
from app.errors import not_found
from app.lessons.catalog import live_exercise

router = APIRouter(tags=["classes"])
Cluster = Annotated[
    str,
    Path(
        pattern=r"^[0-9a-f]{64}$",
        description="A wrong-output group's key, as the insight gives it (`cluster`).",
    ),
]
ExerciseId = Annotated[str, Path(max_length=80)]
HINT_PATH = "/api/classes/{class_id}/exercises/{exercise_id}/output-hints/{cluster}"


def hint_out(hint: HintView) -> ClusterHintOut:
    return ClusterHintOut(
        id=hint.id,
        text=hint.text,
        updated_at=hint.updated_at,
        teacher=hint.teacher,
        exercise_id=hint.exercise_id,
        cluster=hint.cluster,
        sample_output=hint.sample_output,
    )


@router.get("/api/classes/{class_id}/output-hints")
async def list_hints(
    class_id: ClassId, teacher: Teacher, session: SessionDep
) -> list[ClusterHintOut]:
    """The class's hints on wrong-output groups, by exercise."""
    await own_class(session=session, teacher=teacher, class_id=class_id)
    hints = await output_hints.class_hints(session=session, class_id=class_id)
    return [hint_out(h) for h in hints.values()]


@router.put(HINT_PATH)
async def put_hint(
    class_id: ClassId,
    exercise_id: ExerciseId,
    cluster: Cluster,
    body: ClusterHintIn,
    teacher: Teacher,
    session: SessionDep,
) -> ClusterHintOut:
    """Writes the class's hint on one wrong-output group of an exercise (or replaces it):
    students of this class whose graded output falls in the group see it beside the diff."""
    await own_class(session=session, teacher=teacher, class_id=class_id)
    if await live_exercise(session=session, exercise_id=exercise_id) is None:
        raise not_found("Exercise")
    hint = await output_hints.save_hint(
        session=session,
        class_id=class_id,
        teacher_id=teacher.id,
        exercise_id=exercise_id,
        cluster=cluster,
        text=body.text,
        sample_output=await output_hints.sample_of(
            session=session, class_id=class_id, exercise_id=exercise_id, cluster=cluster
        ),
    )
    return hint_out(hint)


@router.delete(HINT_PATH, status_code=status.HTTP_204_NO_CONTENT)
async def delete_hint(
    class_id: ClassId,
    exercise_id: ExerciseId,
    cluster: Cluster,
    teacher: Teacher,
    session: SessionDep,
) -> Response:
    await own_class(session=session, teacher=teacher, class_id=class_id)
    if not await output_hints.delete_hint(
        session=session, class_id=class_id, exercise_id=exercise_id, cluster=cluster
    ):
        raise not_found("Hint")
    return Response(status_code=status.HTTP_204_NO_CONTENT)
