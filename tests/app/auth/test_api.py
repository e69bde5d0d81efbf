"""The accounts part of the JSON API: register, token, /api/me, throttling, body limits."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import httpx
import pytest

from app.auth import service
from app.auth.router import BAD_LOGIN
from app.config import Settings
from app.db import Database
from app.models import LoginFailure, utcnow
from app.models.states import Role
from tests.helpers import bearer, register, unique_name

PASSWORD = "correct horse"


async def test_register_answers_201_with_the_user_and_a_working_token(
    client: httpx.AsyncClient,
) -> None:
    name = unique_name()
    response = await client.post(
        "/api/auth/register", json={"username": name, "password": PASSWORD}
    )
    assert response.status_code == 201, response.text
    body = response.json()
    assert set(body) == {"user", "token"}
    assert set(body["user"]) == {"id", "username", "display_name", "role"}
    assert body["user"]["display_name"] == name  # none given: the username
    assert isinstance(body["user"]["id"], int)
    assert body["user"]["username"] == name
    assert body["user"]["role"] == "student"
    assert isinstance(body["token"], str) and len(body["token"]) >= 32

    me = await client.get("/api/me", headers=bearer(body["token"]))
    assert me.status_code == 200
    assert me.json() == body["user"]


@pytest.mark.parametrize("username", ["abc", "a" * 32, "a.b_c-9", "0123"])
async def test_register_accepts_usernames_at_the_limits(
    client: httpx.AsyncClient, username: str
) -> None:
    response = await client.post(
        "/api/auth/register", json={"username": username, "password": "tq7-wave"}
    )
    assert response.status_code == 201, response.text
    assert response.json()["user"]["username"] == username


async def test_register_a_taken_username_is_409(client: httpx.AsyncClient) -> None:
    name, _ = await register(client)
    response = await client.post(
        "/api/auth/register", json={"username": name, "password": "another password"}
    )
    assert response.status_code == 409
    assert isinstance(response.json()["detail"], str)


@pytest.mark.parametrize(
    "body",
    [
        pytest.param({"username": "ab", "password": PASSWORD}, id="username-too-short"),
        pytest.param({"username": "a" * 33, "password": PASSWORD}, id="username-33-chars"),
        pytest.param({"username": "Alice", "password": PASSWORD}, id="uppercase"),
        pytest.param({"username": "al ice", "password": PASSWORD}, id="space"),
        pytest.param({"username": "al@ice", "password": PASSWORD}, id="at-sign"),
        pytest.param({"username": "alice/x", "password": PASSWORD}, id="slash"),
        pytest.param({"username": "ålice", "password": PASSWORD}, id="non-ascii"),
        pytest.param({"username": "", "password": PASSWORD}, id="empty-username"),
        pytest.param({"username": "alice", "password": "1234567"}, id="password-7-chars"),
        pytest.param({"username": "alice", "password": ""}, id="empty-password"),
        pytest.param({"username": "alice"}, id="missing-password"),
        pytest.param({"password": PASSWORD}, id="missing-username"),
        pytest.param({}, id="empty-object"),
        pytest.param(
            {"username": "alice", "password": PASSWORD, "role": "teacher"}, id="extra-role"
        ),
        pytest.param({"username": 12345, "password": PASSWORD}, id="username-not-string"),
        pytest.param({"username": "alice", "password": 12345678}, id="password-not-string"),
        pytest.param(["alice", PASSWORD], id="not-an-object"),
    ],
)
async def test_register_invalid_input_is_422(client: httpx.AsyncClient, body: Any) -> None:
    response = await client.post("/api/auth/register", json=body)
    assert response.status_code == 422, response.text
    assert "detail" in response.json()


async def test_register_body_that_is_not_json_is_422(client: httpx.AsyncClient) -> None:
    response = await client.post(
        "/api/auth/register",
        content=b"username=alice&password=correct+horse",
        headers={"Content-Type": "application/json"},
    )
    assert response.status_code == 422


async def test_self_registration_never_makes_a_teacher(client: httpx.AsyncClient) -> None:
    response = await client.post(
        "/api/auth/register",
        json={"username": unique_name(), "password": PASSWORD, "role": "teacher"},
    )
    assert response.status_code == 422


async def test_token_for_the_right_password_works_as_bearer(client: httpx.AsyncClient) -> None:
    name, first = await register(client)
    response = await client.post("/api/auth/token", json={"username": name, "password": PASSWORD})
    assert response.status_code == 200
    assert set(response.json()) == {"token"}
    token = response.json()["token"]
    assert token != first
    me = await client.get("/api/me", headers=bearer(token))
    assert me.status_code == 200
    assert me.json()["username"] == name


async def test_wrong_password_and_unknown_user_get_the_same_401(client: httpx.AsyncClient) -> None:
    name, _ = await register(client)
    wrong = await client.post(
        "/api/auth/token", json={"username": name, "password": "not the password"}
    )
    unknown = await client.post(
        "/api/auth/token", json={"username": unique_name(), "password": PASSWORD}
    )
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json() == unknown.json() == {"detail": BAD_LOGIN}


async def test_token_with_missing_fields_is_422(client: httpx.AsyncClient) -> None:
    response = await client.post("/api/auth/token", json={"username": "someone"})
    assert response.status_code == 422


async def test_me_shape_with_bearer(client: httpx.AsyncClient) -> None:
    name, token = await register(client)
    response = await client.get("/api/me", headers=bearer(token))
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"id", "username", "display_name", "role"}
    assert body["username"] == name
    assert body["display_name"] == name
    assert body["role"] == "student"


@pytest.mark.parametrize(
    "headers",
    [
        pytest.param({}, id="no-credentials"),
        pytest.param({"Authorization": "Bearer not-a-real-token"}, id="bogus-token"),
        pytest.param({"Authorization": "Bearer "}, id="empty-bearer"),
        pytest.param({"Authorization": "Basic YWxpY2U6c2VjcmV0"}, id="basic-auth"),
        pytest.param({"Cookie": "session=forged.cookie.value"}, id="forged-cookie"),
    ],
)
async def test_me_without_valid_credentials_is_401(
    client: httpx.AsyncClient, headers: dict[str, Any]
) -> None:
    response = await client.get("/api/me", headers=headers)
    assert response.status_code == 401
    assert isinstance(response.json()["detail"], str)


async def test_teacher_made_by_the_service_sees_role_teacher(
    client: httpx.AsyncClient, db: Database
) -> None:
    name = unique_name("teacher")
    async with db.sessionmaker() as session, session.begin():
        await service.create_user(
            session=session, username=name, password=PASSWORD, role=Role.TEACHER
        )
    token = await client.post("/api/auth/token", json={"username": name, "password": PASSWORD})
    assert token.status_code == 200
    me = await client.get("/api/me", headers=bearer(token.json()["token"]))
    assert me.status_code == 200
    assert me.json()["role"] == "teacher"
    assert me.json()["username"] == name


# Throttling -----------------------------------------------------------------------------


async def _fail(client: httpx.AsyncClient, username: str) -> None:
    response = await client.post(
        "/api/auth/token", json={"username": username, "password": "wrong password"}
    )
    assert response.status_code == 401


async def test_after_five_failures_even_the_right_password_gets_429(
    client: httpx.AsyncClient, settings: Settings
) -> None:
    assert settings.login_failure_limit == 5
    name, _ = await register(client)
    for _ in range(5):
        await _fail(client, name)
    response = await client.post("/api/auth/token", json={"username": name, "password": PASSWORD})
    assert response.status_code == 429
    retry_after = int(response.headers["Retry-After"])
    assert 1 <= retry_after <= settings.login_failure_window_s + 1
    assert isinstance(response.json()["detail"], str)


async def test_four_failures_still_let_the_right_password_in(client: httpx.AsyncClient) -> None:
    name, _ = await register(client)
    for _ in range(4):
        await _fail(client, name)
    response = await client.post("/api/auth/token", json={"username": name, "password": PASSWORD})
    assert response.status_code == 200


async def test_throttling_one_username_leaves_others_alone(client: httpx.AsyncClient) -> None:
    victim, _ = await register(client)
    other, _ = await register(client)
    for _ in range(5):
        await _fail(client, victim)
    assert (
        await client.post("/api/auth/token", json={"username": victim, "password": PASSWORD})
    ).status_code == 429
    response = await client.post("/api/auth/token", json={"username": other, "password": PASSWORD})
    assert response.status_code == 200


async def test_throttling_ignores_the_case_and_spaces_of_the_username(
    client: httpx.AsyncClient,
) -> None:
    name, _ = await register(client)
    for variant in (name.upper(), f" {name}", name.title(), f"{name} ", name):
        await _fail(client, variant)
    response = await client.post("/api/auth/token", json={"username": name, "password": PASSWORD})
    assert response.status_code == 429


async def test_unknown_usernames_are_throttled_too(client: httpx.AsyncClient) -> None:
    name = unique_name()
    for _ in range(5):
        await _fail(client, name)
    response = await client.post("/api/auth/token", json={"username": name, "password": PASSWORD})
    assert response.status_code == 429
    assert "Retry-After" in response.headers


async def test_failures_older_than_the_window_do_not_count(
    client: httpx.AsyncClient, db: Database, settings: Settings
) -> None:
    name, _ = await register(client)
    old = utcnow() - timedelta(seconds=settings.login_failure_window_s + 60)
    async with db.sessionmaker() as session, session.begin():
        session.add_all(
            [LoginFailure(username=name, client="127.0.0.1", created_at=old) for _ in range(10)]
        )
    response = await client.post("/api/auth/token", json={"username": name, "password": PASSWORD})
    assert response.status_code == 200


# Body limits ----------------------------------------------------------------------------


async def test_an_oversized_json_body_is_413_with_a_json_detail(
    client: httpx.AsyncClient, settings: Settings
) -> None:
    padding = "x" * (300 * 1024)
    assert len(padding) > settings.max_body_bytes
    response = await client.post(
        "/api/auth/register",
        json={"username": unique_name(), "password": PASSWORD, "padding": padding},
    )
    assert response.status_code == 413
    assert response.headers["content-type"].startswith("application/json")
    assert isinstance(response.json()["detail"], str)


async def test_an_oversized_body_without_content_length_is_413(client: httpx.AsyncClient) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(300):
            yield b"x" * 1024

    response = await client.post(
        "/api/auth/register", content=chunks(), headers={"Content-Type": "application/json"}
    )
    assert "content-length" not in response.request.headers
    assert response.status_code == 413
    assert isinstance(response.json()["detail"], str)
