"""The class pages in a browser (session cookie, CSRF tokens, no JavaScript): a teacher
runs a class with forms, a student joins by link and sees assignments on the home page."""

from __future__ import annotations

from datetime import timedelta

import httpx

from app.db import Database
from app.models import utcnow
from tests.app.classes.conftest import LESSON, OTHER_LESSON, PASSWORD, World, set_due
from tests.helpers import browser_signup, csrf_from


async def log_in(client: httpx.AsyncClient, username: str) -> None:
    page = await client.get("/login")
    response = await client.post(
        "/login",
        data={
            "username": username,
            "password": PASSWORD,
            "csrf_token": csrf_from(page.text),
            "next": "/",
        },
    )
    assert response.status_code == 303, response.text


async def post_form(
    client: httpx.AsyncClient, url: str, data: dict[str, str] | None = None
) -> httpx.Response:
    token = csrf_from((await client.get("/classes")).text)
    return await client.post(url, data={**(data or {}), "csrf_token": token})


async def test_a_teacher_runs_a_class_with_forms(client: httpx.AsyncClient, world: World) -> None:
    await log_in(client, world.teacher.username)
    created = await post_form(client, "/classes", {"name": "Tuesday group"})
    assert created.status_code == 303
    url = created.headers["location"]
    page = await client.get(url)
    assert page.status_code == 200
    assert "Tuesday group" in page.text
    class_id = int(url.rsplit("/", 1)[1])
    api = (await client.get(f"/api/classes/{class_id}")).json()
    assert api["join_code"] in page.text
    assert f"/join/{api['join_code']}" in page.text

    bad = await post_form(client, f"/classes/{class_id}/rename", {"name": " "})
    assert bad.status_code == 422
    assert "Class name: fill this in." in bad.text
    renamed = await post_form(client, f"/classes/{class_id}/rename", {"name": "Wednesday group"})
    assert renamed.status_code == 303
    assert "Wednesday group" in (await client.get(url)).text

    regenerated = await post_form(client, f"/classes/{class_id}/join-code")
    assert regenerated.status_code == 303
    after = (await client.get(url)).text
    assert api["join_code"] not in after
    assert "the old code no longer works" in after

    bad_due = await post_form(
        client,
        f"/classes/{class_id}/assignments",
        {"lesson_slug": LESSON, "due_date": "31/12/2030"},
    )
    assert bad_due.status_code == 422
    assert "YYYY-MM-DD" in bad_due.text
    unknown = await post_form(
        client, f"/classes/{class_id}/assignments", {"lesson_slug": "nope", "due_date": ""}
    )
    assert unknown.status_code == 422
    assigned = await post_form(
        client,
        f"/classes/{class_id}/assignments",
        {"lesson_slug": LESSON, "due_date": "2030-12-31"},
    )
    assert assigned.status_code == 303
    detail = (await client.get(f"/api/classes/{class_id}")).json()
    assert detail["assignments"][0]["due_at"] == "2030-12-31T23:59:59Z"
    removed = await post_form(client, f"/classes/{class_id}/assignments/{LESSON}/remove")
    assert removed.status_code == 303
    assert (await client.get(f"/api/classes/{class_id}")).json()["assignments"] == []

    archived = await post_form(client, f"/classes/{class_id}/archive", {"archived": "1"})
    assert archived.status_code == 303
    assert "archived" in (await client.get(url)).text
    listing = await client.get("/classes")
    assert "Wednesday group" in listing.text


async def test_forms_need_the_csrf_token(client: httpx.AsyncClient, world: World) -> None:
    await log_in(client, world.teacher.username)
    response = await client.post(f"/classes/{world.class_id}/rename", data={"name": "x"})
    assert response.status_code == 403


async def test_a_student_joins_by_link_and_sees_assignments_at_home(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    await set_due(db, world.class_id, LESSON, utcnow() + timedelta(days=3))
    await set_due(db, world.class_id, OTHER_LESSON, utcnow() - timedelta(days=1))
    await browser_signup(client)
    link = await client.get(f"/join/{world.join_code.lower()}")
    assert link.status_code == 200
    assert "Mine" in link.text  # the class name, asking to confirm
    joined = await client.post(
        f"/join/{world.join_code}", data={"csrf_token": csrf_from(link.text)}
    )
    assert joined.status_code == 303
    assert joined.headers["location"] == "/#assignments"
    home = await client.get("/")
    assert home.status_code == 200
    html = home.text
    assert "Your assignments" in html
    assert "You are in “Mine”" in html
    section = html[html.index('id="assignments"') : html.index('class="hero"')]
    assert f'href="/lessons/{LESSON}"' in section and f'href="/lessons/{OTHER_LESSON}"' in section
    assert "Not started, overdue" in section and "Not started" in section
    assert (utcnow() + timedelta(days=3)).strftime("%d %b %Y") in section
    # The lesson catalog is still there below.
    assert "Learn PyTorch by doing" in html
    again = await client.get(f"/join/{world.join_code}")
    assert "already in" in again.text


async def test_join_errors_are_explained(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    await browser_signup(client)
    page = await client.get("/classes")
    wrong = await client.post(
        "/join", data={"join_code": "WRONGCODE", "csrf_token": csrf_from(page.text)}
    )
    assert wrong.status_code == 404
    assert "No class has that join code." in wrong.text
    missing = await client.get("/join/NOPE2345", headers={"accept": "text/html"})
    assert missing.status_code == 404
    assert "No class has that join code." in missing.text

    async with db.sessionmaker() as session:
        from app.classes import service

        classroom = await service.get_teacher_class(
            session=session, teacher_id=world.teacher.id, class_id=world.class_id
        )
        assert classroom is not None
        await service.set_archived(session=session, classroom=classroom, archived=True)
        await session.commit()
    archived = await client.post(
        f"/join/{world.join_code}", data={"csrf_token": csrf_from(page.text)}
    )
    assert archived.status_code == 409
    assert "archived" in archived.text


async def test_anonymous_visitors_are_sent_to_log_in_and_back(
    client: httpx.AsyncClient, world: World
) -> None:
    response = await client.get(f"/join/{world.join_code}")
    assert response.status_code == 303
    assert response.headers["location"] == f"/login?next=/join/{world.join_code}"
    grid = await client.get(f"/classes/{world.class_id}/progress?q=ab&sort=student")
    assert grid.status_code == 303
    # The whole address comes back after log-in, its query encoded into `next`.
    assert grid.headers["location"] == (
        f"/login?next=/classes/{world.class_id}/progress%3Fq%3Dab%26sort%3Dstudent"
    )
    for page in ("", "/insight", "/attention", "/import", "/join-code"):
        answer = await client.get(f"/classes/{world.class_id}{page}")
        assert answer.status_code == 303, page
        assert answer.headers["location"] == f"/login?next=/classes/{world.class_id}{page}"


async def test_the_teacher_home_page_links_to_the_classes(
    client: httpx.AsyncClient, world: World
) -> None:
    await log_in(client, world.teacher.username)
    home = await client.get("/")
    assert "Your classes" in home.text
    assert f'href="/classes/{world.class_id}"' in home.text
    assert "Your assignments" not in home.text


async def test_anonymous_home_page_is_the_plain_catalog(client: httpx.AsyncClient) -> None:
    home = await client.get("/")
    assert home.status_code == 200
    assert "Your assignments" not in home.text and "Your classes" not in home.text
