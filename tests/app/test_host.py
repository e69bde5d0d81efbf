"""The Host header is the client's to choose: no page, answer or link is made from it.
Absolute links (a class's join link, the next page of a list) come from PUBLIC_BASE_URL;
with TRUSTED_HOSTS set, a request for any other host is refused."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from pydantic import ValidationError

from app.config import Settings
from app.db import Database
from app.lessons.catalog import live_exercise
from app.main import create_app
from app.submissions import service
from tests.app.auth.conftest import client_for
from tests.app.classes.conftest import World, build_world, lesson_items
from tests.app.classes.test_pages import log_in
from tests.conftest import test_settings

EVIL = "evil.example"
FORGED = {"host": EVIL}
SITE = "https://tensorcamp.school.example"


@pytest.fixture
async def world(db: Database) -> World:
    return await build_world(db)


async def two_submissions(db: Database, user_id: int) -> str:
    """Two submissions of the user to one exercise, so that its list has a next page."""
    _, exercises = await lesson_items(db)
    async with db.writer() as session:
        exercise = await live_exercise(session=session, exercise_id=exercises[0].id)
        assert exercise is not None
        for _ in range(2):
            await service.create_submission(
                session=session, user_id=user_id, exercise=exercise, code="print(1)\n"
            )
        await session.commit()
    return exercises[0].id


def assert_not_forged(response: httpx.Response) -> None:
    assert response.status_code < 400, (response.request.url, response.status_code)
    assert EVIL not in response.text, response.request.url
    for name, value in response.headers.items():
        assert EVIL not in value, (response.request.url, name, value)


async def test_a_forged_host_is_in_no_page_and_no_answer(
    tmp_path: Path, db: Database, world: World
) -> None:
    app = create_app(test_settings(tmp_path, public_base_url=SITE + "/"), database=db)
    exercise = await two_submissions(db, world.member.id)
    async with client_for(app) as client:
        # The JSON API, bearer token: the join link, and the link to a list's next page.
        teacher = world.teacher.headers | FORGED
        created = await client.post("/api/classes", json={"name": "Week 2"}, headers=teacher)
        assert_not_forged(created)
        assert created.json()["join_url"] == f"{SITE}/join/{created.json()['join_code']}"
        for path in ("/api/classes", f"/api/classes/{world.class_id}", "/openapi.json"):
            assert_not_forged(await client.get(path, headers=teacher))
        renewed = await client.post(f"/api/classes/{world.class_id}/join-code", headers=teacher)
        assert_not_forged(renewed)
        assert renewed.json()["join_url"].startswith(f"{SITE}/join/")
        listed = await client.get(
            f"/api/exercises/{exercise}/submissions?limit=1",
            headers=world.member.headers | FORGED,
        )
        assert_not_forged(listed)
        assert listed.headers["link"].startswith(f"<{SITE}/api/exercises/{exercise}/submissions?")

        # The pages, by session cookie: the class page shows the join link.
        for path in ("/", "/login", "/signup", "/docs", "/lessons/tensor-basics"):
            assert_not_forged(await client.get(path, headers=FORGED))
        # A redirect the router makes itself (a trailing slash) points at a path.
        slashed = await client.get("/lessons/tensor-basics/", headers=FORGED)
        assert_not_forged(slashed)
        assert (slashed.status_code, slashed.headers["location"]) == (307, "/lessons/tensor-basics")
        await log_in(client, world.teacher.username)
        class_page = await client.get(f"/classes/{world.class_id}", headers=FORGED)
        assert_not_forged(class_page)
        code = renewed.json()["join_code"]
        assert f"{SITE}/join/{code}" in class_page.text
        for path in (
            "/",
            "/account",
            "/classes",
            f"/classes/{world.class_id}/progress",
            f"/classes/{world.class_id}/insight",
        ):
            assert_not_forged(await client.get(path, headers=FORGED))


async def test_outside_production_links_default_to_the_local_address(
    tmp_path: Path, db: Database, world: World
) -> None:
    settings = test_settings(tmp_path, public_base_url="", port=8123)
    async with client_for(create_app(settings, database=db)) as client:
        answer = await client.get(f"/api/classes/{world.class_id}", headers=world.teacher.headers)
    assert answer.json()["join_url"] == f"http://127.0.0.1:8123/join/{world.join_code}"


async def test_trusted_hosts_refuse_any_other_host(tmp_path: Path, db: Database) -> None:
    settings = test_settings(tmp_path, trusted_hosts="testserver *.school.example")
    async with client_for(create_app(settings, database=db)) as client:
        for host in (EVIL, "school.example.evil.example", "testserver.evil.example"):
            refused = await client.get("/", headers={"host": host})
            assert refused.status_code == 400, host
            assert EVIL not in refused.text
        assert (await client.get("/api/tracks", headers={"host": EVIL})).status_code == 400
        assert (await client.get("/")).status_code == 200
        assert (await client.get("/", headers={"host": "tc.school.example"})).status_code == 200
        assert (await client.get("/", headers={"host": "testserver:8000"})).status_code == 200


def test_production_needs_a_public_base_url() -> None:
    with pytest.raises(ValidationError, match="PUBLIC_BASE_URL"):
        Settings(environment="production", secret_key="k" * 40)
    settings = Settings(environment="production", secret_key="k" * 40, public_base_url=SITE)
    assert settings.effective_public_base_url == SITE


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("public_base_url", "tensorcamp.example"),
        ("public_base_url", "ftp://tensorcamp.example"),
        ("public_base_url", "https://tensorcamp.example/?x=1"),
        ("trusted_hosts", "https://tensorcamp.example"),
        ("trusted_hosts", "tensorcamp.example:443"),
        ("trusted_hosts", "tc.*.example"),
    ],
)
def test_addresses_that_are_not_addresses_are_refused(field: str, value: str) -> None:
    with pytest.raises(ValidationError, match=field):
        Settings(**{field: value})  # type: ignore[arg-type]
