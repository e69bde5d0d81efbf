"""API tokens: named, expiring, listed and revoked by their owner, by API and on the page."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.auth import tokens
from app.auth.security import token_digest
from app.config import Settings
from app.db import Database
from app.models import ApiToken, utcnow
from tests.app.auth.conftest import client_for
from tests.helpers import bearer, browser_signup, csrf_from, meta_csrf, register

PASSWORD = "correct horse"


def _when(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


async def test_tokens_are_listed_without_the_token_itself(
    client: httpx.AsyncClient, settings: Settings
) -> None:
    name, first = await register(client)
    second = await client.post("/api/auth/token", json={"username": name, "password": PASSWORD})
    listed = await client.get("/api/me/tokens", headers=bearer(first))
    assert listed.status_code == 200
    rows = listed.json()
    assert [row["name"] for row in rows] == ["log-in", "sign-up"]  # newest first
    for row in rows:
        assert set(row) == {"id", "name", "created_at", "last_used_at", "expires_at"}
        lasts = _when(row["expires_at"]) - _when(row["created_at"])
        assert abs(lasts - timedelta(days=settings.api_token_days)) < timedelta(minutes=1)
    assert first not in listed.text and second.json()["token"] not in listed.text


async def test_a_named_token_with_its_own_expiry_is_shown_once(client: httpx.AsyncClient) -> None:
    _, token = await register(client)
    made = await client.post(
        "/api/me/tokens",
        json={"name": "grading script", "expires_in_days": 7},
        headers=bearer(token),
    )
    assert made.status_code == 201, made.text
    body = made.json()
    assert body["name"] == "grading script"
    assert set(body) == {"id", "name", "created_at", "last_used_at", "expires_at", "token"}
    lasts = _when(body["expires_at"]) - _when(body["created_at"])
    assert abs(lasts - timedelta(days=7)) < timedelta(minutes=1)
    me = await client.get("/api/me", headers=bearer(body["token"]))
    assert me.status_code == 200
    listed = (await client.get("/api/me/tokens", headers=bearer(token))).json()
    assert body["id"] in [row["id"] for row in listed]
    assert "token" not in listed[0]


@pytest.mark.parametrize(
    "body",
    [
        pytest.param({}, id="no-name"),
        pytest.param({"name": ""}, id="empty-name"),
        pytest.param({"name": "   "}, id="blank-name"),
        pytest.param({"name": "x" * 101}, id="name-too-long"),
        pytest.param({"name": "ok", "expires_in_days": 0}, id="zero-days"),
        pytest.param({"name": "ok", "expires_in_days": 367}, id="too-many-days"),
        pytest.param({"name": "ok", "expires_in_days": "soon"}, id="days-not-a-number"),
        pytest.param({"name": "ok", "never_expires": True}, id="extra-field"),
    ],
)
async def test_a_bad_token_request_is_422_naming_the_field(
    client: httpx.AsyncClient, body: Any
) -> None:
    _, token = await register(client)
    response = await client.post("/api/me/tokens", json=body, headers=bearer(token))
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"][0] == "body"


async def test_a_revoked_token_stops_working(client: httpx.AsyncClient) -> None:
    _, token = await register(client)
    other = (
        await client.post("/api/me/tokens", json={"name": "laptop"}, headers=bearer(token))
    ).json()
    revoked = await client.delete(f"/api/me/tokens/{other['id']}", headers=bearer(token))
    assert revoked.status_code == 204
    assert (await client.get("/api/me", headers=bearer(other["token"]))).status_code == 401
    again = await client.delete(f"/api/me/tokens/{other['id']}", headers=bearer(token))
    assert again.status_code == 404
    assert [
        row["name"] for row in (await client.get("/api/me/tokens", headers=bearer(token))).json()
    ] == ["sign-up"]


async def test_nobody_revokes_or_sees_someone_elses_token(client: httpx.AsyncClient) -> None:
    _, mine = await register(client)
    _, theirs = await register(client)
    [their_row] = (await client.get("/api/me/tokens", headers=bearer(theirs))).json()
    response = await client.delete(f"/api/me/tokens/{their_row['id']}", headers=bearer(mine))
    assert response.status_code == 404
    assert (await client.get("/api/me", headers=bearer(theirs))).status_code == 200
    assert their_row["id"] not in [
        r["id"] for r in (await client.get("/api/me/tokens", headers=bearer(mine))).json()
    ]


@pytest.mark.parametrize("token_id", ["0", "-1", "99999999999999999999999", "abc"])
async def test_an_odd_token_id_is_refused_without_a_server_error(
    client: httpx.AsyncClient, token_id: str
) -> None:
    _, token = await register(client)
    response = await client.delete(f"/api/me/tokens/{token_id}", headers=bearer(token))
    assert response.status_code == 422


async def test_an_expired_token_stops_working_and_leaves_the_list(
    client: httpx.AsyncClient, db: Database
) -> None:
    _, token = await register(client)
    assert (await client.get("/api/me", headers=bearer(token))).status_code == 200
    async with db.sessionmaker() as session, session.begin():
        row = await session.scalar(
            select(ApiToken).where(ApiToken.token_hash == token_digest(token))
        )
        assert row is not None
        row.expires_at = utcnow() - timedelta(seconds=1)
    response = await client.get("/api/me", headers=bearer(token))
    assert response.status_code == 401
    assert "expired" in response.json()["detail"]


async def test_tokens_note_when_they_were_last_used(
    client: httpx.AsyncClient, db: Database
) -> None:
    _, token = await register(client)
    [row] = (await client.get("/api/me/tokens", headers=bearer(token))).json()
    # The list itself was a use of the token: noted once the answer was sent.
    [row] = (await client.get("/api/me/tokens", headers=bearer(token))).json()
    assert row["last_used_at"] is not None
    assert utcnow() - _when(row["last_used_at"]) < timedelta(minutes=1)


async def test_making_tokens_beyond_the_cap_drops_the_least_recently_used(
    client: httpx.AsyncClient, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tokens, "MAX_PER_USER", 3)
    name, first = await register(client)
    made = [
        (
            await client.post("/api/auth/token", json={"username": name, "password": PASSWORD})
        ).json()["token"]
        for _ in range(3)
    ]
    assert (await client.get("/api/me", headers=bearer(first))).status_code == 401
    for token in made:
        assert (await client.get("/api/me", headers=bearer(token))).status_code == 200


async def test_the_account_page_lists_names_and_revokes_tokens(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    name = await browser_signup(client)
    page = await client.get("/account")
    made = await client.post(
        "/account/tokens",
        data={"csrf_token": csrf_from(page.text), "name": "my <laptop>", "expires_in_days": "30"},
    )
    assert made.status_code == 200
    token = re.search(r'<code class="token">([^<]+)</code>', made.text)
    assert token
    assert "my &lt;laptop&gt;" in made.text
    [row] = (await client.get("/api/me/tokens", headers=bearer(token.group(1)))).json()
    assert row["name"] == "my <laptop>"
    lasts = _when(row["expires_at"]) - _when(row["created_at"])
    assert abs(lasts - timedelta(days=30)) < timedelta(minutes=1)

    page = await client.get("/account")
    action = f'action="/account/tokens/{row["id"]}/revoke"'
    assert action in page.text
    revoked = await client.post(
        f"/account/tokens/{row['id']}/revoke", data={"csrf_token": csrf_from(page.text)}
    )
    assert revoked.status_code == 303
    assert revoked.headers["location"] == "/account"
    async with client_for(app) as script:
        assert (await script.get("/api/me", headers=bearer(token.group(1)))).status_code == 401
    assert action not in (await client.get("/account")).text
    assert name in (await client.get("/account")).text


async def test_the_account_page_refuses_a_bad_token_form_with_the_form(
    client: httpx.AsyncClient,
) -> None:
    await browser_signup(client)
    page = await client.get("/account")
    response = await client.post(
        "/account/tokens",
        data={"csrf_token": csrf_from(page.text), "name": "x" * 101, "expires_in_days": "9999"},
    )
    assert response.status_code == 422
    assert "at most 100 characters" in response.text
    assert 'action="/account/tokens"' in response.text


async def test_the_token_api_works_by_cookie_with_the_csrf_header(
    client: httpx.AsyncClient,
) -> None:
    await browser_signup(client)
    page = await client.get("/account")
    headers = {"X-CSRF-Token": meta_csrf(page.text)}
    assert (await client.post("/api/me/tokens", json={"name": "x"})).status_code == 403
    made = await client.post("/api/me/tokens", json={"name": "x"}, headers=headers)
    assert made.status_code == 201
    listed = await client.get("/api/me/tokens")
    assert [row["name"] for row in listed.json()] == ["x"]
    gone = await client.delete(f"/api/me/tokens/{made.json()['id']}", headers=headers)
    assert gone.status_code == 204


async def test_token_endpoints_need_a_caller(client: httpx.AsyncClient) -> None:
    assert (await client.get("/api/me/tokens")).status_code == 401
    assert (await client.post("/api/me/tokens", json={"name": "x"})).status_code == 401
    assert (await client.delete("/api/me/tokens/1")).status_code == 401
