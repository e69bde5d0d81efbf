"""Co-teachers (an LMS course's other instructors): a teacher who runs a class beside its
owner has the owner's access to that class, and to no other class of the owner's."""

from __future__ import annotations

import httpx

from app.classes import service
from app.db import Database
from app.models import ClassTeacher
from tests.app.classes.conftest import World


async def test_a_co_teacher_runs_the_class_and_nothing_else_of_the_owners(
    client: httpx.AsyncClient, world: World, db: Database
) -> None:
    teacher, co_teacher = world.teacher, world.other_teacher
    async with db.sessionmaker() as session:
        owners_other = await service.create_class(
            session=session, teacher_id=teacher.id, name="Not shared"
        )
        await session.commit()
        other_id = owners_other.id
    mine = f"/api/classes/{world.class_id}"
    assert (await client.get(f"{mine}/progress", headers=co_teacher.headers)).status_code == 404

    async with db.sessionmaker() as session:
        session.add(ClassTeacher(class_id=world.class_id, teacher_id=co_teacher.id))
        await session.commit()

    progress = await client.get(f"{mine}/progress", headers=co_teacher.headers)
    assert progress.status_code == 200, progress.text
    assert [s["id"] for s in progress.json()["students"]] == [world.member.id]
    listed = [
        c["id"] for c in (await client.get("/api/classes", headers=co_teacher.headers)).json()
    ]
    assert world.class_id in listed and world.other_class_id in listed
    assert other_id not in listed
    shared_page = await client.get(f"/classes/{world.class_id}", headers=co_teacher.headers)
    assert shared_page.status_code == 200
    unshared = await client.get(f"/api/classes/{other_id}/progress", headers=co_teacher.headers)
    assert unshared.status_code == 404
    # The owner keeps the class; a student is still no teacher of it.
    assert (await client.get(f"{mine}/progress", headers=teacher.headers)).status_code == 200
    assert (await client.get(f"{mine}/progress", headers=world.member.headers)).status_code == 403
