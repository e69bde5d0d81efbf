"""Progress survives a restart: the app migrates and loads content itself on a fresh
database, and a new app on the same database finds the accounts and answers again."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest

from app.config import Settings
from app.main import create_app
from tests import conftest as root
from tests.helpers import bearer, csrf_from, refuse_server_errors

PASSWORD = "correct horse"


@asynccontextmanager
async def running(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    """The app as `python -m app serve` starts it: no database handed in, lifespan run."""
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            client.event_hooks["response"].append(refuse_server_errors)
            yield client


@pytest.fixture(params=["sqlite", "postgresql"])
async def database_url(request: pytest.FixtureRequest) -> AsyncIterator[str]:
    """ "" (SQLite in the data directory) or a fresh PostgreSQL database, dropped afterwards."""
    if request.param == "sqlite":
        yield ""
        return
    name, url = await root._create_postgres_database()
    try:
        yield url
    finally:
        await root._drop_postgres_database(name)


def _settings(tmp_path: Path, database_url: str) -> Settings:
    return root.test_settings(tmp_path, database_url=database_url, grading_enabled=False)


async def test_progress_survives_a_restart(tmp_path: Path, database_url: str) -> None:
    username = "restart-student"

    async with running(_settings(tmp_path, database_url)) as client:
        # The app migrated the empty database and loaded the content on its own.
        tracks = (await client.get("/api/tracks")).json()
        assert [t["level"] for t in tracks] == ["beginner", "intermediate", "advanced"]

        response = await client.post(
            "/api/auth/register", json={"username": username, "password": PASSWORD}
        )
        assert response.status_code == 201
        token = response.json()["token"]
        answer = await client.post(
            "/api/questions/gpu-support-same-device/answers",
            json={"answer": 3},
            headers=bearer(token),
        )
        assert answer.json()["correct"] is True
        wrong = await client.post(
            "/api/questions/gpu-support-move-to/answers",
            json={"answer": ["cuda"]},
            headers=bearer(token),
        )
        assert wrong.json()["correct"] is False
        before = (await client.get("/api/me/progress", headers=bearer(token))).json()
        lesson = (await client.get("/api/lessons/gpu-support")).json()
        [matching] = [q for q in lesson["questions"] if q["kind"] == "matching"]
        matching_ids = [i["id"] for i in matching["left"] + matching["right"]]

    if not database_url:
        assert (tmp_path / "tensorcamp.db").is_file()

    async with running(_settings(tmp_path, database_url)) as client:
        # The old token still works, the password still logs in, the progress is there.
        me = await client.get("/api/me", headers=bearer(token))
        assert me.status_code == 200
        assert me.json()["username"] == username
        login = await client.post(
            "/api/auth/token", json={"username": username, "password": PASSWORD}
        )
        assert login.status_code == 200
        new_token = login.json()["token"]
        after = (await client.get("/api/me/progress", headers=bearer(new_token))).json()
        assert after == before
        gpu = next(row for row in after["lessons"] if row["slug"] == "gpu-support")
        assert (gpu["questions_correct"], gpu["questions_total"]) == (1, len(lesson["questions"]))
        # Content was synced again without new ids: same matching ids as before.
        lesson = (await client.get("/api/lessons/gpu-support")).json()
        [matching] = [q for q in lesson["questions"] if q["kind"] == "matching"]
        assert [i["id"] for i in matching["left"] + matching["right"]] == matching_ids
        # Registering the same name again is still refused.
        again = await client.post(
            "/api/auth/register", json={"username": username, "password": PASSWORD}
        )
        assert again.status_code == 409


async def test_a_browser_session_survives_a_restart(tmp_path: Path, database_url: str) -> None:
    """The session cookie is signed with SECRET_KEY, not kept in memory."""
    async with running(_settings(tmp_path, database_url)) as client:
        page = await client.get("/signup")
        token = csrf_from(page.text)
        response = await client.post(
            "/signup",
            data={"username": "cookie-student", "password": PASSWORD, "csrf_token": token},
        )
        assert response.status_code == 303
        cookies = dict(client.cookies)

    async with running(_settings(tmp_path, database_url)) as client:
        client.cookies.update(cookies)
        me = await client.get("/api/me")
        assert me.status_code == 200
        assert me.json()["username"] == "cookie-student"
