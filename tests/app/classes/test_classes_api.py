"""Classes through the JSON API: create, rename, archive, join codes, roster, assignments."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from app.classes.service import JOIN_ALPHABET, JOIN_CODE_LENGTH
from app.db import Database
from tests.app.classes.conftest import (
    LESSON,
    OTHER_LESSON,
    World,
    add_person,
    lesson_items,
    right_answer,
)


async def test_create_answers_201_with_id_name_and_join_code(
    client: httpx.AsyncClient, world: World
) -> None:
    response = await client.post(
        "/api/classes", json={"name": "  Week 1 group  "}, headers=world.teacher.headers
    )
    assert response.status_code == 201, response.text
    body = response.json()
    assert {"id", "name", "join_code"} <= set(body)
    assert body["name"] == "Week 1 group"
    assert re.fullmatch(f"[{JOIN_ALPHABET}]{{{JOIN_CODE_LENGTH}}}", body["join_code"])
    assert not set(body["join_code"]) & set("0O1IL")
    assert body["join_url"].endswith(f"/join/{body['join_code']}")
    assert body["archived"] is False

    listed = await client.get("/api/classes", headers=world.teacher.headers)
    assert [c["id"] for c in listed.json()][:1] == [body["id"]]  # newest first


async def test_a_student_cannot_create_a_class(client: httpx.AsyncClient, world: World) -> None:
    response = await client.post("/api/classes", json={"name": "x"}, headers=world.member.headers)
    assert response.status_code == 403
    assert isinstance(response.json()["detail"], str)


@pytest.mark.parametrize(
    "body",
    [
        pytest.param({"name": ""}, id="empty"),
        pytest.param({"name": "   "}, id="blank"),
        pytest.param({"name": "x" * 101}, id="101-chars"),
        pytest.param({"name": 5}, id="not-a-string"),
        pytest.param({}, id="missing"),
        pytest.param({"name": "ok", "teacher_id": 1}, id="extra-field"),
        pytest.param(["ok"], id="not-an-object"),
    ],
)
async def test_invalid_class_names_are_422(
    client: httpx.AsyncClient, world: World, body: Any
) -> None:
    response = await client.post("/api/classes", json=body, headers=world.teacher.headers)
    assert response.status_code == 422, response.text


async def test_names_of_1_and_100_characters_are_accepted(
    client: httpx.AsyncClient, world: World
) -> None:
    for name in ("x", "y" * 100):
        response = await client.post(
            "/api/classes", json={"name": name}, headers=world.teacher.headers
        )
        assert response.status_code == 201
        assert response.json()["name"] == name


async def test_rename_and_archive_then_bring_back(client: httpx.AsyncClient, world: World) -> None:
    url = f"/api/classes/{world.class_id}"
    renamed = await client.patch(url, json={"name": "Renamed"}, headers=world.teacher.headers)
    assert renamed.status_code == 200
    assert renamed.json()["name"] == "Renamed"
    assert (
        await client.patch(url, json={"name": ""}, headers=world.teacher.headers)
    ).status_code == 422

    archived = await client.patch(url, json={"archived": True}, headers=world.teacher.headers)
    assert archived.json()["archived"] is True
    # The teacher still reads an archived class.
    assert (await client.get(f"{url}/progress", headers=world.teacher.headers)).status_code == 200
    back = await client.patch(url, json={"archived": False}, headers=world.teacher.headers)
    assert back.json()["archived"] is False
    assert back.json()["name"] == "Renamed"


async def test_joining_answers_the_class_and_twice_is_harmless(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    async with db.sessionmaker() as session:
        student = await add_person(session)
        await session.commit()
    for code in (
        world.join_code,
        world.join_code.lower(),
        f" {world.join_code[:4]}-{world.join_code[4:]} ",
    ):
        response = await client.post(
            "/api/classes/join", json={"join_code": code}, headers=student.headers
        )
        assert response.status_code == 200, response.text
        assert response.json() == {"id": world.class_id, "name": "Mine"}
    detail = await client.get(f"/api/classes/{world.class_id}", headers=world.teacher.headers)
    usernames = [s["username"] for s in detail.json()["students"]]
    assert usernames.count(student.username) == 1


@pytest.mark.parametrize("code", ["", "NOPE", "ZZZZZZZZ", "x" * 64, "K7MP 4QXR"])
async def test_a_wrong_join_code_is_404_with_a_clear_message(
    client: httpx.AsyncClient, world: World, code: str
) -> None:
    response = await client.post(
        "/api/classes/join", json={"join_code": code}, headers=world.member.headers
    )
    assert response.status_code == 404
    assert response.json() == {"detail": "No class has that join code."}


async def test_a_join_code_over_64_characters_is_422(
    client: httpx.AsyncClient, world: World
) -> None:
    response = await client.post(
        "/api/classes/join", json={"join_code": "x" * 65}, headers=world.member.headers
    )
    assert response.status_code == 422


async def test_a_regenerated_code_replaces_the_old_one(
    client: httpx.AsyncClient, world: World
) -> None:
    response = await client.post(
        f"/api/classes/{world.class_id}/join-code", headers=world.teacher.headers
    )
    assert response.status_code == 200
    new_code = response.json()["join_code"]
    assert new_code != world.join_code
    old = await client.post(
        "/api/classes/join", json={"join_code": world.join_code}, headers=world.outsider.headers
    )
    assert old.status_code == 404
    assert old.json()["detail"] == "No class has that join code."
    new = await client.post(
        "/api/classes/join", json={"join_code": new_code}, headers=world.outsider.headers
    )
    assert new.status_code == 200
    # Students already in the class stay in it.
    roster = await client.get(f"/api/classes/{world.class_id}", headers=world.teacher.headers)
    assert {s["id"] for s in roster.json()["students"]} == {world.member.id, world.outsider.id}


async def test_an_archived_class_refuses_new_students_but_not_its_members(
    client: httpx.AsyncClient, world: World
) -> None:
    await client.patch(
        f"/api/classes/{world.class_id}", json={"archived": True}, headers=world.teacher.headers
    )
    refused = await client.post(
        "/api/classes/join", json={"join_code": world.join_code}, headers=world.outsider.headers
    )
    assert refused.status_code == 409
    assert "archived" in refused.json()["detail"]
    again = await client.post(
        "/api/classes/join", json={"join_code": world.join_code}, headers=world.member.headers
    )
    assert again.status_code == 200


async def test_a_student_may_be_in_several_classes(client: httpx.AsyncClient, world: World) -> None:
    response = await client.post(
        "/api/classes/join", json={"join_code": world.other_join_code}, headers=world.member.headers
    )
    assert response.status_code == 200
    joined = await client.get("/api/classes/joined", headers=world.member.headers)
    assert {c["id"] for c in joined.json()} == {world.class_id, world.other_class_id}
    mine = next(c for c in joined.json() if c["id"] == world.class_id)
    assert "join_code" not in mine
    assert mine["assignments"] == [
        {
            "lesson_slug": LESSON,
            "title": mine["assignments"][0]["title"],
            "due_at": None,
            "late_work": True,
            "late_penalty_percent": 0,
            "state": "not_started",
            "extended_to": None,
        }
    ]


async def test_removing_a_student_keeps_their_history_and_they_may_rejoin(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    questions, _ = await lesson_items(db)
    answered = await client.post(
        f"/api/questions/{questions[0].id}/answers",
        json={"answer": right_answer(questions[0])},
        headers=world.member.headers,
    )
    assert answered.status_code == 200
    removed = await client.delete(
        f"/api/classes/{world.class_id}/students/{world.member.id}", headers=world.teacher.headers
    )
    assert removed.status_code == 204
    again = await client.delete(
        f"/api/classes/{world.class_id}/students/{world.member.id}", headers=world.teacher.headers
    )
    assert again.status_code == 404
    grid = await client.get(
        f"/api/classes/{world.class_id}/progress", headers=world.teacher.headers
    )
    assert grid.json()["students"] == []
    # The removed student is no longer the teacher's to read ...
    hidden = await client.get(
        f"/api/classes/{world.class_id}/students/{world.member.id}/submissions",
        headers=world.teacher.headers,
    )
    assert hidden.status_code == 404
    # ... but their own progress is intact, and they may join again.
    mine = await client.get("/api/me/progress", headers=world.member.headers)
    lesson = next(p for p in mine.json()["lessons"] if p["slug"] == LESSON)
    assert lesson["questions_correct"] == 1
    rejoined = await client.post(
        "/api/classes/join", json={"join_code": world.join_code}, headers=world.member.headers
    )
    assert rejoined.status_code == 200
    grid = await client.get(
        f"/api/classes/{world.class_id}/progress", headers=world.teacher.headers
    )
    cell = next(c for c in grid.json()["cells"] if c["lesson_slug"] == LESSON)
    assert cell["questions_correct"] == 1


async def test_assignments_with_and_without_due_dates(
    client: httpx.AsyncClient, world: World
) -> None:
    base = f"/api/classes/{world.class_id}/assignments"
    h = world.teacher.headers
    dated = await client.put(f"{base}/{OTHER_LESSON}", json={"due_at": "2031-03-04"}, headers=h)
    assert dated.status_code == 200, dated.text
    assert dated.json()["due_at"] == "2031-03-04T23:59:59Z"
    exact = await client.put(
        f"{base}/{OTHER_LESSON}", json={"due_at": "2031-03-04T10:00:00+02:00"}, headers=h
    )
    assert exact.json()["due_at"] == "2031-03-04T08:00:00Z"
    cleared = await client.put(f"{base}/{OTHER_LESSON}", json={"due_at": None}, headers=h)
    assert cleared.json()["due_at"] is None
    listed = await client.get(base, headers=h)
    assert [a["lesson_slug"] for a in listed.json()] == [LESSON, OTHER_LESSON]  # course order
    assert (await client.delete(f"{base}/{OTHER_LESSON}", headers=h)).status_code == 204
    assert (await client.delete(f"{base}/{OTHER_LESSON}", headers=h)).status_code == 404
    unknown = await client.put(f"{base}/no-such-lesson", json={}, headers=h)
    assert unknown.status_code == 404


@pytest.mark.parametrize(
    "due",
    [
        "tomorrow",
        "2031-02-30",
        "2031-03-04T10:00:00",
        "1999-12-31",
        "2100-01-01",
        12,
        "",
        "2031-13-01",
    ],
)
async def test_invalid_due_dates_are_422(
    client: httpx.AsyncClient, world: World, due: str | int
) -> None:
    response = await client.put(
        f"/api/classes/{world.class_id}/assignments/{OTHER_LESSON}",
        json={"due_at": due},
        headers=world.teacher.headers,
    )
    if due == "":
        assert response.status_code == 200  # empty means no due date
        assert response.json()["due_at"] is None
    else:
        assert response.status_code == 422, response.text


async def test_huge_or_negative_ids_never_error(client: httpx.AsyncClient, world: World) -> None:
    h = world.teacher.headers
    for path in (
        "/api/classes/99999999999999999999",
        "/api/classes/0/progress",
        "/api/classes/-1/insight",
        f"/api/classes/{world.class_id}/students/99999999999999/submissions",
    ):
        response = await client.get(path, headers=h)
        assert response.status_code in (404, 422), path


async def test_the_contract_is_published_in_openapi(client: httpx.AsyncClient) -> None:
    paths = (await client.get("/openapi.json")).json()["paths"]
    assert "post" in paths["/api/classes"]
    assert "post" in paths["/api/classes/join"]
    for path in (
        "/api/classes/{class_id}/progress",
        "/api/classes/{class_id}/progress.csv",
        "/api/classes/{class_id}/students/{student_id}/submissions",
    ):
        assert "get" in paths[path], path


async def test_assigning_without_a_body_means_no_due_date(
    client: httpx.AsyncClient, world: World
) -> None:
    response = await client.put(
        f"/api/classes/{world.class_id}/assignments/{OTHER_LESSON}", headers=world.teacher.headers
    )
    assert response.status_code == 200
    assert response.json()["due_at"] is None
