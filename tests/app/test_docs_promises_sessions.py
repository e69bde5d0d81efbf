"""docs/security.md: a request is logged in only while "the session is younger than
`SESSION_MAX_AGE_S` (14 days), counted from the log-in"."""

from __future__ import annotations

from datetime import timedelta

import httpx
from fastapi import FastAPI
from sqlalchemy import func, select

from app.models import LoginSession, User
from tests.helpers import browser_signup, csrf_from


async def _age_sessions(app: FastAPI, username: str, by: timedelta) -> None:
    """Move the user's log-ins back in time, as if they had happened `by` ago."""
    async with app.state.database.writer() as session, session.begin():
        rows = await session.scalars(
            select(LoginSession).join(User).where(User.username == username)
        )
        for row in rows:
            row.created_at -= by


async def test_a_session_ends_at_its_maximum_age_counted_from_the_log_in(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    username = await browser_signup(client)
    max_age = timedelta(seconds=app.state.settings.session_max_age_s)
    await _age_sessions(app, username, max_age - timedelta(minutes=1))
    assert (await client.get("/api/me")).status_code == 200  # using it does not renew it
    await _age_sessions(app, username, timedelta(minutes=2))
    assert (await client.get("/api/me")).status_code == 401
    account = await client.get("/account")
    assert account.status_code == 303
    assert account.headers["location"].startswith("/login")


async def test_a_new_log_in_clears_the_users_sessions_past_their_age(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    username = await browser_signup(client)
    await _age_sessions(app, username, timedelta(seconds=app.state.settings.session_max_age_s + 60))
    client.cookies.clear()
    page = await client.get("/login")
    response = await client.post(
        "/login",
        data={
            "username": username,
            "password": "correct horse",
            "csrf_token": csrf_from(page.text),
        },
    )
    assert response.status_code == 303, response.text
    async with app.state.database.sessionmaker() as session:
        count = await session.scalar(
            select(func.count())
            .select_from(LoginSession)
            .join(User)
            .where(User.username == username)
        )
    assert count == 1
