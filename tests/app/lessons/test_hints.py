"""Progressive hints: hint k opens after k × hints_after wrong graded submissions, once the
one before it is open; its text only once opened, in the reader's language; each opening
recorded once, and shown to the student's teacher. Through the API and the lesson page,
on a small course of its own (tests/app/content/bilingual_course.py: three hints, a new one
every 2 wrong submissions)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from app.cli import main
from app.content import load_catalog, sync_catalog
from app.db import Database
from app.models import HintOpening
from tests.app.classes.conftest import World, add_submission, build_world
from tests.app.content.bilingual_course import (
    EXERCISE,
    HINTS,
    LESSON,
    TURKISH_HINTS,
    write_course,
)
from tests.helpers import browser_signup, csrf_from, make_student

HINTS_URL = f"/api/exercises/{EXERCISE}/hints"


@pytest.fixture
async def world(db: Database, tmp_path: Path) -> World:
    """A class with a student (made first: it is assigned a lesson of the built-in course),
    then the bilingual course in place of the built-in one."""
    world = await build_world(db)
    tree = write_course(tmp_path)
    assert main(["content", "translations", "--stamp", "--path", str(tree)]) == 0
    async with db.writer() as session, session.begin():
        await sync_catalog(session=session, catalog=load_catalog(tree))
    return world


async def wrong(db: Database, user_id: int, count: int = 1, **how: Any) -> None:
    for _ in range(count):
        await add_submission(
            db,
            user_id=user_id,
            exercise_id=EXERCISE,
            verdict=how.pop("verdict", "wrong_output"),
            **how,
        )


async def hints_of(client: httpx.AsyncClient, headers: dict[str, str], lang: str = "en") -> dict:
    response = await client.get(f"{HINTS_URL}?lang={lang}", headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


async def open_hint(
    client: httpx.AsyncClient, headers: dict[str, str], number: int
) -> httpx.Response:
    return await client.post(f"{HINTS_URL}/{number}/open", headers=headers)


async def openings(db: Database, user_id: int) -> list[int]:
    async with db.sessionmaker() as session:
        rows = await session.scalars(
            select(HintOpening.hint_index)
            .where(HintOpening.user_id == user_id)
            .order_by(HintOpening.hint_index)
        )
        return list(rows.all())


async def test_hints_open_one_by_one_after_wrong_submissions(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    headers, student = world.member.headers, world.member.id
    shown = await hints_of(client, headers)
    assert shown["wrong_submissions"] == 0 and shown["hints_after"] == 2
    assert [(h["number"], h["unlocks_after"], h["available"]) for h in shown["hints"]] == [
        (1, 2, False),
        (2, 4, False),
        (3, 6, False),
    ]
    assert all(h["text_html"] is None and not h["opened"] for h in shown["hints"])
    locked = await open_hint(client, headers, 1)
    assert locked.status_code == 403
    assert locked.json()["detail"] == (
        "This hint opens after 2 wrong submissions; you have made 0."
    )

    await wrong(db, student)
    await wrong(db, student, status="error")  # the platform failed: not the student's
    await wrong(db, student, mode="run")  # a try-out run is never graded
    await wrong(db, student, verdict="passed")
    assert (await open_hint(client, headers, 1)).status_code == 403
    await wrong(db, student, verdict="runtime_error")
    shown = await hints_of(client, headers)
    assert shown["wrong_submissions"] == 2
    assert [h["available"] for h in shown["hints"]] == [True, False, False]
    assert shown["hints"][0]["text_html"] is None  # unlocked, not yet opened

    opened = await open_hint(client, headers, 1)
    assert opened.status_code == 200
    hint = opened.json()
    assert hint["number"] == 1 and hint["opened"] and hint["opened_at"]
    assert HINTS[0] in hint["text_html"]
    again = await open_hint(client, headers, 1)
    assert again.json()["opened_at"] == hint["opened_at"]  # the first opening counts
    assert await openings(db, student) == [0]

    await wrong(db, student, count=4)  # six wrong: every hint's count is reached ...
    skipped = await open_hint(client, headers, 3)
    assert skipped.status_code == 403  # ... but they open in order
    assert skipped.json()["detail"] == "Open the hint before this one first."
    assert (await open_hint(client, headers, 2)).status_code == 200
    assert (await open_hint(client, headers, 3)).status_code == 200
    shown = await hints_of(client, headers)
    assert [h["text_html"] is not None for h in shown["hints"]] == [True, True, True]
    assert await openings(db, student) == [0, 1, 2]


async def test_hints_are_in_the_language_of_the_request(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    headers = world.member.headers
    await wrong(db, world.member.id, count=2)
    opened = await client.post(f"{HINTS_URL}/1/open?lang=tr", headers=headers)
    assert TURKISH_HINTS[0] in opened.json()["text_html"]
    assert HINTS[0] in (await hints_of(client, headers, "en"))["hints"][0]["text_html"]


async def test_each_student_has_their_own_count_and_openings(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    await wrong(db, world.member.id, count=2)
    assert (await open_hint(client, world.member.headers, 1)).status_code == 200
    other, other_id = await make_student(db)
    assert (await hints_of(client, other))["hints"][0]["opened"] is False
    assert (await open_hint(client, other, 1)).status_code == 403
    assert await openings(db, other_id) == []


async def test_unknown_hints_exercises_and_callers(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    headers = world.member.headers
    assert (await open_hint(client, headers, 4)).status_code == 404
    assert (await client.post(f"{HINTS_URL}/0/open", headers=headers)).status_code == 422
    assert (await client.post(f"{HINTS_URL}/x/open", headers=headers)).status_code == 422
    assert (await client.get("/api/exercises/no-such/hints", headers=headers)).status_code == 404
    assert (await client.get(HINTS_URL)).status_code == 401
    assert (await client.post(f"{HINTS_URL}/1/open")).status_code == 401


async def test_the_lesson_page_shows_and_opens_hints(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    await browser_signup(client)
    me = (await client.get("/api/me")).json()
    page = (await client.get(f"/lessons/{LESSON}")).text
    assert "Hint 1 opens after 2 wrong submissions." in page
    assert "You have made 0 wrong submissions so far." in page
    assert HINTS[0] not in page
    await wrong(db, me["id"], count=2)
    page = (await client.get(f"/lessons/{LESSON}")).text
    assert f'action="/exercises/{EXERCISE}/hints/1/open"' in page
    assert "Show hint 1" in page and "Hint 2 opens after 4 wrong submissions." in page
    response = await client.post(
        f"/exercises/{EXERCISE}/hints/1/open", data={"csrf_token": csrf_from(page)}
    )
    assert response.status_code == 303
    assert response.headers["location"] == f"/lessons/{LESSON}#hints-{EXERCISE}-1"
    page = (await client.get(f"/lessons/{LESSON}")).text
    assert HINTS[0] in page and "Show hint 1" not in page
    assert await openings(db, me["id"]) == [0]
    # Without the CSRF token, nothing is opened.
    await wrong(db, me["id"], count=2)
    refused = await client.post(f"/exercises/{EXERCISE}/hints/2/open", data={})
    assert refused.status_code == 403
    assert await openings(db, me["id"]) == [0]
    turkish = (await client.get(f"/lessons/{LESSON}?lang=tr")).text
    assert TURKISH_HINTS[0] in turkish
    assert "İpuçları" in turkish and "2. ipucunu göster" in turkish
    assert "3. ipucu 6 yanlış gönderimden sonra açılır." in turkish


async def test_the_teacher_sees_which_hints_the_student_opened(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    await wrong(db, world.member.id, count=4)
    for number in (1, 2):
        assert (await open_hint(client, world.member.headers, number)).status_code == 200
    url = f"/api/classes/{world.class_id}/students/{world.member.id}/lessons/{LESSON}"
    drill = (await client.get(url, headers=world.teacher.headers)).json()
    assert [(h["exercise_id"], h["number"]) for h in drill["hints"]] == [
        (EXERCISE, 1),
        (EXERCISE, 2),
    ]
    assert all(e["kind"] in ("answer", "submission") for e in drill["events"])
    assert (await client.get(url, headers=world.other_teacher.headers)).status_code == 404
    async with db.sessionmaker() as session:
        assert await session.scalar(select(func.count()).select_from(HintOpening)) == 2


async def test_the_drill_down_page_lists_the_hints_opened(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    await wrong(db, world.member.id, count=2)
    assert (await open_hint(client, world.member.headers, 1)).status_code == 200
    page = await client.get(
        f"/classes/{world.class_id}/students/{world.member.id}/lessons/{LESSON}",
        headers=world.teacher.headers,
    )
    assert page.status_code == 200, page.text
    assert "Opened hint 1" in page.text
    assert "Hints opened" in page.text
