"""Small helpers shared by the HTTP tests."""

from __future__ import annotations

import re
import uuid

import httpx


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
