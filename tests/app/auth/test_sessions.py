"""Ending sessions: log-out ends the cookie for whoever copied it, log out everywhere ends
every cookie and token, and so do a new password, a new role and disabling the account."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from fastapi import FastAPI

from app import cli
from app.auth import service
from app.db import Database
from app.models.states import Role
from tests.app.auth.conftest import FileApp, client_for
from tests.helpers import bearer, browser_signup, csrf_from, register

PASSWORD = "correct horse"


async def _cli(*argv: str) -> int:
    return await asyncio.to_thread(cli.main, list(argv))


async def _log_in(client: httpx.AsyncClient, username: str, password: str = PASSWORD) -> None:
    page = await client.get("/login")
    response = await client.post(
        "/login",
        data={"username": username, "password": password, "csrf_token": csrf_from(page.text)},
    )
    assert response.status_code == 303, response.text


async def _token(app: FastAPI, username: str, password: str = PASSWORD) -> str:
    """A token, asked for by a script (no cookie, so no CSRF token either)."""
    async with client_for(app) as script:
        response = await script.post(
            "/api/auth/token", json={"username": username, "password": password}
        )
    assert response.status_code == 200, response.text
    return str(response.json()["token"])


async def _me_with_cookie(app: FastAPI, cookie: str) -> int:
    async with client_for(app) as thief:
        thief.cookies.set("session", cookie)
        return (await thief.get("/api/me")).status_code


async def test_a_cookie_copied_before_log_out_no_longer_works(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    await browser_signup(client)
    copied = client.cookies["session"]
    assert await _me_with_cookie(app, copied) == 200
    page = await client.get("/")
    assert (
        await client.post("/logout", data={"csrf_token": csrf_from(page.text)})
    ).status_code == 303
    assert await _me_with_cookie(app, copied) == 401
    async with client_for(app) as thief:
        thief.cookies.set("session", copied)
        account = await thief.get("/account")
        assert account.status_code == 303
        assert account.headers["location"].startswith("/login")


async def test_logging_out_one_browser_keeps_the_others(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    name = await browser_signup(client)
    async with client_for(app) as laptop:
        await _log_in(laptop, name)
        page = await laptop.get("/")
        await laptop.post("/logout", data={"csrf_token": csrf_from(page.text)})
        assert (await laptop.get("/api/me")).status_code == 401
    assert (await client.get("/api/me")).status_code == 200


async def test_log_out_everywhere_from_the_account_page(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    async with client_for(app) as someone_else:
        _, token = await register(someone_else)
    name = await browser_signup(client)
    own_token = await _token(app, name)
    async with client_for(app) as laptop:
        await _log_in(laptop, name)
        laptop_cookie = laptop.cookies["session"]
    page = await client.get("/account")
    assert 'action="/account/logout-all"' in page.text
    response = await client.post("/account/logout-all", data={"csrf_token": csrf_from(page.text)})
    assert response.status_code == 303
    assert (await client.get("/api/me")).status_code == 401
    assert await _me_with_cookie(app, laptop_cookie) == 401
    assert (await client.get("/api/me", headers=bearer(own_token))).status_code == 401
    # Someone else's token is untouched.
    assert (await client.get("/api/me", headers=bearer(token))).status_code == 200
    # And the account is not locked: logging in again works.
    await _log_in(client, name)
    assert (await client.get("/api/me")).status_code == 200


async def test_log_out_everywhere_through_the_api(client: httpx.AsyncClient, app: FastAPI) -> None:
    name = await browser_signup(client)
    cookie = client.cookies["session"]
    first = await _token(app, name)
    second = await _token(app, name)
    client.cookies.clear()
    response = await client.post("/api/me/logout-all", headers=bearer(first))
    assert response.status_code == 204
    for token in (first, second):
        assert (await client.get("/api/me", headers=bearer(token))).status_code == 401
    assert await _me_with_cookie(app, cookie) == 401
    assert (await client.post("/api/me/logout-all")).status_code == 401


async def test_log_out_everywhere_by_cookie_needs_the_csrf_token(client: httpx.AsyncClient) -> None:
    await browser_signup(client)
    assert (await client.post("/api/me/logout-all")).status_code == 403
    assert (await client.post("/account/logout-all", data={})).status_code == 403
    assert (await client.get("/api/me")).status_code == 200


async def test_a_new_password_from_the_command_line_ends_cookies_and_tokens(
    file_app: FileApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = file_app.app
    monkeypatch.setenv("APP_USER_PASSWORD", "a long teacher secret")
    assert await _cli("create-user", "--role", "teacher", "--username", "ada") == 0
    async with client_for(app) as browser:
        await _log_in(browser, "ada", "a long teacher secret")
        assert (await browser.get("/api/me")).json()["role"] == "teacher"
        cookie = browser.cookies["session"]
    token = await _token(app, "ada", "a long teacher secret")

    monkeypatch.setenv("APP_USER_PASSWORD", "another long secret")
    assert await _cli("create-user", "--role", "teacher", "--username", "ada", "--update") == 0

    assert await _me_with_cookie(app, cookie) == 401
    async with client_for(app) as script:
        assert (await script.get("/api/me", headers=bearer(token))).status_code == 401
    fresh = await _token(app, "ada", "another long secret")
    async with client_for(app) as script:
        assert (await script.get("/api/me", headers=bearer(fresh))).status_code == 200


async def test_a_new_role_ends_the_sessions_and_the_same_role_does_not(
    client: httpx.AsyncClient, app: FastAPI, db: Database
) -> None:
    name, token = await register(client)
    async with db.sessionmaker() as session, session.begin():
        user = await service.get_user_by_username(session=session, username=name)
        assert user is not None
        await service.set_role(session=session, user=user, role=Role.STUDENT)
    assert (await client.get("/api/me", headers=bearer(token))).status_code == 200
    async with db.sessionmaker() as session, session.begin():
        user = await service.get_user_by_username(session=session, username=name)
        assert user is not None
        await service.set_role(session=session, user=user, role=Role.TEACHER)
    assert (await client.get("/api/me", headers=bearer(token))).status_code == 401
    fresh = await _token(app, name)
    me = await client.get("/api/me", headers=bearer(fresh))
    assert me.json()["role"] == "teacher"


async def test_a_disabled_account_cannot_log_in_and_its_sessions_end(
    file_app: FileApp, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    app = file_app.app
    monkeypatch.setenv("APP_USER_PASSWORD", "a long teacher secret")
    assert await _cli("create-user", "--username", "lin") == 0
    async with client_for(app) as browser:
        await _log_in(browser, "lin", "a long teacher secret")
        token = await _token(app, "lin", "a long teacher secret")
        cookie = browser.cookies["session"]

    assert await _cli("disable-user", "--username", "lin") == 0
    assert "disabled lin" in capsys.readouterr().out
    assert await _me_with_cookie(app, cookie) == 401
    async with client_for(app) as script:
        assert (await script.get("/api/me", headers=bearer(token))).status_code == 401
        refused = await script.post(
            "/api/auth/token", json={"username": "lin", "password": "a long teacher secret"}
        )
        assert refused.status_code == 403
        assert "disabled" in refused.json()["detail"]
        # The wrong password says nothing about the account.
        wrong = await script.post(
            "/api/auth/token", json={"username": "lin", "password": "not the password"}
        )
        assert wrong.status_code == 401
        page = await script.get("/login")
        form = await script.post(
            "/login",
            data={
                "username": "lin",
                "password": "a long teacher secret",
                "csrf_token": csrf_from(page.text),
            },
        )
        assert form.status_code == 403
        assert "disabled" in form.text

    assert await _cli("enable-user", "--username", "lin") == 0
    async with client_for(app) as script:
        await _token(app, "lin", "a long teacher secret")
    assert await _cli("disable-user", "--username", "nobody") == 1
