"""The CSRF guard reads media types as HTTP defines them: case-insensitively, with or
without parameters, so no spelling of a form slips past it (log-in CSRF included)."""

from __future__ import annotations

from urllib.parse import urlencode

import httpx
import pytest

from tests.helpers import register

PASSWORD = "correct horse"


@pytest.mark.parametrize(
    "content_type",
    [
        "Application/X-WWW-Form-Urlencoded",
        "APPLICATION/X-WWW-FORM-URLENCODED",
        "application/x-www-form-urlencoded; charset=UTF-8",
        " application/x-www-form-urlencoded",
    ],
)
async def test_a_login_form_in_any_spelling_still_needs_the_csrf_token(
    client: httpx.AsyncClient, content_type: str
) -> None:
    name, _ = await register(client)
    assert not client.cookies  # a first visit, as a cross-site page would make it
    response = await client.post(
        "/login",
        content=urlencode({"username": name, "password": PASSWORD}).encode(),
        headers={"Content-Type": content_type},
    )
    assert response.status_code == 403
    assert (await client.get("/api/me")).status_code == 401


async def test_a_multipart_form_in_capitals_still_needs_the_csrf_token(
    client: httpx.AsyncClient,
) -> None:
    name, _ = await register(client)
    body = (
        b'--b\r\nContent-Disposition: form-data; name="username"\r\n\r\n'
        + name.encode()
        + b'\r\n--b\r\nContent-Disposition: form-data; name="password"\r\n\r\n'
        + PASSWORD.encode()
        + b"\r\n--b--\r\n"
    )
    response = await client.post(
        "/signup", content=body, headers={"Content-Type": "Multipart/Form-Data; boundary=b"}
    )
    assert response.status_code == 403
