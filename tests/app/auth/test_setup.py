"""The first administrator, made in the browser with the one-time setup token the server
prints at start-up; the administrator's page, where teachers are made."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

import httpx
import pytest
from sqlalchemy import func, select

from app.auth import setup
from app.auth.security import token_digest
from app.config import Settings
from app.db import Database
from app.models import Role, SetupToken, User, utcnow
from tests.app.auth.conftest import ClientAt
from tests.helpers import PASSWORD, browser_signup, csrf_from, meta_csrf, register, unique_name

HTML = {"Accept": "text/html"}


async def _token(db: Database, now: datetime | None = None) -> str:
    async with db.sessionmaker() as session, session.begin():
        token = await setup.issue_setup_token(session=session, now=now)
    assert token is not None
    return token


async def _role(db: Database, username: str) -> Role:
    async with db.sessionmaker() as session:
        user = await session.scalar(select(User).where(User.username == username))
    assert user is not None
    return user.role


async def _tokens_left(db: Database) -> int:
    async with db.sessionmaker() as session:
        return int(await session.scalar(select(func.count()).select_from(SetupToken)) or 0)


async def _enter(client: httpx.AsyncClient, token: str) -> httpx.Response:
    page = await client.get("/setup", headers=HTML)
    return await client.post(
        "/setup", data={"token": token, "csrf_token": csrf_from(page.text)}, headers=HTML
    )


async def _become_admin(client: httpx.AsyncClient, db: Database) -> str:
    name = await browser_signup(client)
    response = await _enter(client, await _token(db))
    assert response.status_code == 303, response.text
    return name


def test_tokens_are_long_typeable_and_read_back_however_typed() -> None:
    token = setup.new_setup_token()
    assert len(token.replace("-", "")) == 25
    assert set(token.replace("-", "")) <= set(setup.ALPHABET)
    assert setup.normalize_token(f"  {token.lower().replace('-', ' ')} ") == token
    assert setup.normalize_token(token) == token


async def test_a_token_is_kept_only_as_its_digest(db: Database) -> None:
    token = await _token(db)
    async with db.sessionmaker() as session:
        stored = (await session.scalars(select(SetupToken.token_hash))).all()
    assert token_digest(token) in stored
    assert token not in stored


async def test_the_start_prints_a_token_while_there_is_no_administrator(
    db: Database, settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="app"):
        token = await setup.announce_setup_token(db, settings)
    assert token is not None
    assert token in caplog.text
    assert "http://testserver/setup" in caplog.text
    async with db.sessionmaker() as session, session.begin():
        session.add(User(username=unique_name("admin"), password_hash="x", role=Role.ADMIN))
    caplog.clear()
    # Once there is an administrator: no token, and those left are void.
    assert await setup.announce_setup_token(db, settings) is None
    assert "setup token" not in caplog.text
    assert await _tokens_left(db) == 0


async def test_the_setup_page_explains_itself_to_a_visitor(client: httpx.AsyncClient) -> None:
    page = await client.get("/setup", headers=HTML)
    assert page.status_code == 200
    assert "setup token" in page.text
    assert 'href="/signup?next=/setup"' in page.text
    assert 'href="/login?next=/setup"' in page.text
    assert 'name="token"' not in page.text
    posted = await client.post(
        "/setup", data={"token": "x", "csrf_token": meta_csrf(page.text)}, headers=HTML
    )
    assert posted.status_code == 303
    assert posted.headers["location"] == "/login?next=/setup"


async def test_the_right_token_makes_the_signed_in_account_the_administrator(
    client: httpx.AsyncClient, db: Database
) -> None:
    name = await browser_signup(client)
    token = await _token(db)
    page = await client.get("/setup", headers=HTML)
    assert 'name="token"' in page.text
    assert name in page.text
    response = await _enter(client, token.lower().replace("-", " "))
    assert response.status_code == 303
    assert response.headers["location"] == "/admin"
    assert await _role(db, name) == Role.ADMIN
    # Still logged in, in a new session (a new role ended the old ones).
    me = await client.get("/api/me")
    assert me.json() == me.json() | {"username": name, "role": "admin"}
    admin = await client.get("/admin", headers=HTML)
    assert admin.status_code == 200
    assert "You are the administrator of this site now." in admin.text
    assert await _tokens_left(db) == 0
    # The setup page now just says so.
    assert (await client.get("/setup")).headers["location"] == "/admin"


async def test_a_wrong_or_expired_token_changes_nothing(
    client: httpx.AsyncClient, db: Database
) -> None:
    name = await browser_signup(client)
    live = await _token(db)
    expired = await _token(db, now=utcnow() - timedelta(hours=setup.SETUP_TOKEN_HOURS + 1))
    for token in ("AAAAA-BBBBB-CCCCC-DDDDD-EEEEE", expired, ""):
        response = await _enter(client, token)
        assert response.status_code == 422
        assert "not a live setup token" in response.text
    assert await _role(db, name) == Role.STUDENT
    assert (await _enter(client, live)).status_code == 303


async def test_there_is_only_ever_one_first_administrator(
    client_at: ClientAt, db: Database
) -> None:
    first, second = await _token(db), await _token(db)
    async with client_at("192.0.2.1") as one, client_at("192.0.2.2") as two:
        await browser_signup(one)
        other = await browser_signup(two)
        assert (await _enter(one, first)).status_code == 303
        late = await _enter(two, second)
        assert late.status_code == 409
        assert "has an administrator already" in late.text
    assert await _role(db, other) == Role.STUDENT


async def test_only_an_administrator_opens_the_administration(
    client: httpx.AsyncClient,
) -> None:
    anonymous = await client.get("/admin", headers=HTML)
    assert anonymous.status_code == 303
    assert anonymous.headers["location"] == "/login?next=/admin"
    await browser_signup(client)
    refused = await client.get("/admin", headers=HTML)
    assert refused.status_code == 403
    page = await client.get("/account", headers=HTML)
    posted = await client.post(
        "/admin/teachers",
        data={"username": "sneaky", "password": PASSWORD, "csrf_token": csrf_from(page.text)},
    )
    assert posted.status_code == 403


async def test_the_administrator_creates_a_teacher_who_can_log_in(
    client: httpx.AsyncClient, client_at: ClientAt, db: Database
) -> None:
    await _become_admin(client, db)
    page = await client.get("/admin", headers=HTML)
    name = unique_name("t")
    made = await client.post(
        "/admin/teachers",
        data={
            "username": name,
            "password": "a long teacher secret",
            "csrf_token": csrf_from(page.text),
        },
    )
    assert made.status_code == 303
    assert made.headers["location"] == "/admin"
    listed = await client.get("/admin", headers=HTML)
    assert f"Teacher account “{name}” made." in listed.text
    assert f"<td>{name}</td>" in listed.text
    assert await _role(db, name) == Role.TEACHER
    async with client_at("192.0.2.9") as teacher:
        login = await teacher.post(
            "/api/auth/token", json={"username": name, "password": "a long teacher secret"}
        )
        assert login.status_code == 200
    # A taken username, an invalid one, a weak password: the form again, saying why.
    taken = await client.post(
        "/admin/teachers",
        data={
            "username": name,
            "password": "another long secret",
            "csrf_token": csrf_from(page.text),
        },
        headers=HTML,
    )
    assert taken.status_code == 409
    assert "That username is taken" in taken.text
    bad = await client.post(
        "/admin/teachers",
        data={"username": "x", "password": "short", "csrf_token": csrf_from(page.text)},
        headers=HTML,
    )
    assert bad.status_code == 422
    assert 'id="teacher-username-error"' in bad.text
    assert 'id="teacher-password-error"' in bad.text


async def test_the_administrator_makes_an_existing_student_a_teacher(
    client: httpx.AsyncClient, db: Database
) -> None:
    student, token = await register(client)
    admin = await _become_admin(client, db)
    page = await client.get("/admin", headers=HTML)
    csrf = csrf_from(page.text)
    promoted = await client.post(
        "/admin/teachers/promote", data={"username": student.upper(), "csrf_token": csrf}
    )
    assert promoted.status_code == 303
    assert await _role(db, student) == Role.TEACHER
    # A new role ends the account's sessions and tokens: it logs in again as a teacher.
    assert (
        await client.get("/api/me", headers={"Authorization": f"Bearer {token}"})
    ).status_code == 401
    again = await client.post(
        "/admin/teachers/promote", data={"username": student, "csrf_token": csrf}
    )
    assert again.status_code == 303
    assert "is a teacher already" in (await client.get("/admin", headers=HTML)).text
    unknown = await client.post(
        "/admin/teachers/promote",
        data={"username": "nobody-here", "csrf_token": csrf},
        headers=HTML,
    )
    assert unknown.status_code == 404
    assert "No account has the username “nobody-here”." in unknown.text
    itself = await client.post(
        "/admin/teachers/promote", data={"username": admin, "csrf_token": csrf}, headers=HTML
    )
    assert itself.status_code == 409
    assert await _role(db, admin) == Role.ADMIN


async def test_an_administrator_made_otherwise_voids_the_tokens(db: Database) -> None:
    token = await _token(db)
    async with db.sessionmaker() as session, session.begin():
        user = User(username=unique_name(), password_hash="x")
        session.add(user)
        session.add(User(username=unique_name("admin"), password_hash="x", role=Role.ADMIN))
        await session.flush()
        with pytest.raises(setup.AlreadySetUp):
            await setup.become_admin(session=session, user=user, token=token)
