"""Small helpers shared by the HTTP tests."""

from __future__ import annotations

import re
import uuid
from functools import cache

import httpx
import pytest
from argon2 import PasswordHasher
from prometheus_client.parser import text_string_to_metric_families

from app.auth import security, service
from app.auth.security import hash_password
from app.db import Database
from app.models import User


def unique_name(prefix: str = "user") -> str:
    return f"{prefix}{uuid.uuid4().hex[:10]}"


async def register(client: httpx.AsyncClient, username: str | None = None) -> tuple[str, str]:
    """A new student; returns (username, bearer token)."""
    username = username or unique_name()
    response = await client.post(
        "/api/auth/register", json={"username": username, "password": "correct horse"}
    )
    assert response.status_code == 201, response.text
    return username, response.json()["token"]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def csrf_from(html: str) -> str:
    match = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert match, "no CSRF field in the page"
    return match.group(1)


async def browser_signup(client: httpx.AsyncClient, username: str | None = None) -> str:
    """Sign up through the HTML form, leaving the client logged in by cookie."""
    username = username or unique_name()
    page = await client.get("/signup")
    response = await client.post(
        "/signup",
        data={
            "username": username,
            "password": "correct horse",
            "csrf_token": csrf_from(page.text),
            "next": "/",
        },
    )
    assert response.status_code == 303, response.text
    return username


def meta_csrf(html: str) -> str:
    """The CSRF token scripts read from the page's <meta name="csrf-token">."""
    match = re.search(r'<meta name="csrf-token" content="([^"]+)"', html)
    assert match, "no csrf-token meta tag in the page"
    return match.group(1)


async def refuse_server_errors(response: httpx.Response) -> None:
    """An httpx response hook: no request in the suite may make the server answer 5xx."""
    assert response.status_code < 500, (
        f"{response.request.method} {response.request.url} answered {response.status_code}"
    )


PASSWORD = "correct horse"


@cache
def _password_hash() -> str:
    return hash_password(PASSWORD)


async def make_student(db: Database) -> tuple[dict[str, str], int]:
    """A student made straight in the database (argon2 runs once per test run, not per
    user): (bearer headers, user id). The password is PASSWORD."""
    return await make_user(db, "student")


async def make_teacher(db: Database) -> tuple[dict[str, str], int]:
    """A teacher, as make_student makes a student: (bearer headers, user id)."""
    return await make_user(db, "teacher")


async def make_user(db: Database, role: str) -> tuple[dict[str, str], int]:
    async with db.sessionmaker() as session, session.begin():
        user = User(username=unique_name(), password_hash=_password_hash(), role=role)
        session.add(user)
        await session.flush()
        token = await service.issue_token(session=session, user=user)
        return bearer(token), user.id


def cheap_password_hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Argon2 with the smallest cost, so that tests can sign up and log in freely (the real
    parameters take ~0.2 s a hash). Hashes made either way verify either way."""
    cheap = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
    monkeypatch.setattr(security, "_hasher", cheap)
    monkeypatch.setattr(security, "_DUMMY_HASH", cheap.hash("not-a-real-password"))


def metric(text: str, name: str, **labels: str) -> float | None:
    """The value of the sample `name{labels}` in a /metrics answer (None when absent)."""
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and sample.labels == labels:
                return sample.value
    return None
