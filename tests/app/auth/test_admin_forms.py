"""The administrator's new-teacher form reads a username and names a refusal as sign-up does
(one place: app/auth/pages.py credentials_error), not with a copy of older messages."""

from __future__ import annotations

import httpx

from app.db import Database
from tests.app.auth.test_setup import _become_admin
from tests.helpers import csrf_from, unique_name

HTML = {"Accept": "text/html"}


async def test_the_new_teacher_form_names_the_field_and_the_rule(
    client: httpx.AsyncClient, db: Database
) -> None:
    await _become_admin(client, db)
    page = await client.get("/admin", headers=HTML)
    refused = await client.post(
        "/admin/teachers",
        data={"username": "ab", "password": "p" * 5000, "csrf_token": csrf_from(page.text)},
        headers=HTML,
    )
    assert refused.status_code == 422
    assert "Username: use at least 3 characters (this has 2)." in refused.text
    assert "Password: use at most 1024 characters (this has 5000)." in refused.text


async def test_the_new_teacher_form_reads_capitals_as_sign_up_does(
    client: httpx.AsyncClient, db: Database
) -> None:
    await _become_admin(client, db)
    page = await client.get("/admin", headers=HTML)
    name = unique_name("t")
    made = await client.post(
        "/admin/teachers",
        data={
            "username": name.upper(),
            "password": "a long teacher secret",
            "csrf_token": csrf_from(page.text),
        },
    )
    assert made.status_code == 303
    listed = await client.get("/admin", headers=HTML)
    assert f"<td>{name}</td>" in listed.text
