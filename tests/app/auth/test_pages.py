"""Account pages and forms: sign-up, log-in, log-out, CSRF, redirects and the cookie."""

from __future__ import annotations

import base64
import json
import re
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.auth.router import BAD_LOGIN
from tests.helpers import bearer, browser_signup, csrf_from, meta_csrf, register, unique_name

PASSWORD = "correct horse"
GPU_MC = "gpu-support-same-device"  # a multiple-choice question whose answer is 3


def _set_cookie_headers(response: httpx.Response) -> list[str]:
    return response.headers.get_list("set-cookie")


async def _session_cookie_header(client: httpx.AsyncClient) -> str:
    """The Set-Cookie of a fresh sign-up (it logs in)."""
    page = await client.get("/signup")
    response = await client.post(
        "/signup",
        data={"username": unique_name(), "password": PASSWORD, "csrf_token": csrf_from(page.text)},
    )
    assert response.status_code == 303
    [cookie] = [c for c in _set_cookie_headers(response) if c.startswith("session=")]
    return cookie


@pytest.mark.parametrize("path", ["/signup", "/login"])
async def test_account_pages_render_with_a_csrf_field(client: httpx.AsyncClient, path: str) -> None:
    response = await client.get(path, headers={"Accept": "text/html"})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    token = csrf_from(response.text)
    assert len(token) >= 16
    assert meta_csrf(response.text) == token
    assert f'action="{path}"' in response.text
    assert 'name="username"' in response.text
    assert 'name="password"' in response.text
    assert '<label for="username">' in response.text


async def test_signup_form_logs_in_by_cookie(client: httpx.AsyncClient) -> None:
    name = await browser_signup(client)
    me = await client.get("/api/me")
    assert me.status_code == 200
    assert me.json()["username"] == name
    assert me.json()["role"] == "student"
    progress = await client.get("/api/me/progress")
    assert progress.status_code == 200


async def test_signup_form_redirects_to_next(client: httpx.AsyncClient) -> None:
    page = await client.get("/signup?next=/lessons/gpu-support")
    assert 'name="next" value="/lessons/gpu-support"' in page.text
    response = await client.post(
        "/signup",
        data={
            "username": unique_name(),
            "password": PASSWORD,
            "csrf_token": csrf_from(page.text),
            "next": "/lessons/gpu-support",
        },
    )
    assert response.status_code == 303
    assert response.headers["location"] == "/lessons/gpu-support"


async def test_signup_form_with_a_taken_username_shows_the_form_again(
    client: httpx.AsyncClient,
) -> None:
    name, _ = await register(client)
    page = await client.get("/signup")
    response = await client.post(
        "/signup",
        data={"username": name, "password": PASSWORD, "csrf_token": csrf_from(page.text)},
    )
    assert response.status_code == 409
    assert "That username is taken" in response.text
    assert (await client.get("/api/me")).status_code == 401


@pytest.mark.parametrize(
    ("username", "password", "message"),
    [
        ("Bad Name", PASSWORD, "lowercase letters"),
        ("ok-name", "short", "at least 8 characters"),
    ],
)
async def test_signup_form_with_invalid_input_shows_the_error(
    client: httpx.AsyncClient, username: str, password: Any, message: str
) -> None:
    page = await client.get("/signup")
    response = await client.post(
        "/signup",
        data={"username": username, "password": password, "csrf_token": csrf_from(page.text)},
    )
    assert response.status_code == 422
    assert message in response.text
    assert 'aria-invalid="true"' in response.text
    assert (await client.get("/api/me")).status_code == 401


@pytest.mark.parametrize("path", ["/signup", "/login"])
async def test_form_post_without_csrf_field_is_403(client: httpx.AsyncClient, path: str) -> None:
    await client.get(path)  # the browser has a session cookie, as after any visit
    response = await client.post(
        path, data={"username": unique_name(), "password": PASSWORD, "next": "/"}
    )
    assert response.status_code == 403
    assert (await client.get("/api/me")).status_code == 401


@pytest.mark.parametrize("path", ["/signup", "/login"])
async def test_form_post_with_a_wrong_csrf_token_is_403(
    client: httpx.AsyncClient, path: str
) -> None:
    page = await client.get(path)
    token = csrf_from(page.text)
    response = await client.post(
        path,
        data={"username": unique_name(), "password": PASSWORD, "csrf_token": token[::-1] + "x"},
    )
    assert response.status_code == 403
    assert (await client.get("/api/me")).status_code == 401


async def test_login_form_without_any_session_cookie_is_403(client: httpx.AsyncClient) -> None:
    """Log-in CSRF: a cross-site form on a first visit carries no cookie and no token."""
    name, _ = await register(client)
    assert not client.cookies
    response = await client.post("/login", data={"username": name, "password": PASSWORD})
    assert response.status_code == 403
    assert (await client.get("/api/me")).status_code == 401


async def test_a_token_from_another_session_is_403(client: httpx.AsyncClient, app: FastAPI) -> None:
    page = await client.get("/login")
    token = csrf_from(page.text)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as other:
        await other.get("/login")
        response = await other.post(
            "/signup", data={"username": unique_name(), "password": PASSWORD, "csrf_token": token}
        )
    assert response.status_code == 403


async def test_cookie_json_post_needs_the_csrf_header(client: httpx.AsyncClient) -> None:
    await browser_signup(client)
    body = {"answer": 3}
    missing = await client.post(f"/api/questions/{GPU_MC}/answers", json=body)
    assert missing.status_code == 403
    wrong = await client.post(
        f"/api/questions/{GPU_MC}/answers", json=body, headers={"X-CSRF-Token": "nope"}
    )
    assert wrong.status_code == 403

    page = await client.get("/lessons/gpu-support")
    response = await client.post(
        f"/api/questions/{GPU_MC}/answers",
        json=body,
        headers={"X-CSRF-Token": meta_csrf(page.text)},
    )
    assert response.status_code == 200
    assert response.json()["correct"] is True


async def test_bearer_requests_need_no_csrf_even_with_a_session_cookie(
    client: httpx.AsyncClient,
) -> None:
    _, token = await register(client)
    await client.get("/login")  # an anonymous session cookie is now in the jar
    assert "session" in client.cookies
    response = await client.post(
        f"/api/questions/{GPU_MC}/answers", json={"answer": 3}, headers=bearer(token)
    )
    assert response.status_code == 200


async def test_login_form_logs_in_and_redirects_to_next(client: httpx.AsyncClient) -> None:
    name, _ = await register(client)
    page = await client.get("/login?next=/lessons/tensor-basics")
    response = await client.post(
        "/login",
        data={
            "username": name,
            "password": PASSWORD,
            "csrf_token": csrf_from(page.text),
            "next": "/lessons/tensor-basics",
        },
    )
    assert response.status_code == 303
    assert response.headers["location"] == "/lessons/tensor-basics"
    assert (await client.get("/api/me")).json()["username"] == name


@pytest.mark.parametrize("known_user", [True, False], ids=["wrong-password", "unknown-user"])
async def test_login_form_failure_is_401_with_the_generic_message(
    client: httpx.AsyncClient, known_user: bool
) -> None:
    name = (await register(client))[0] if known_user else unique_name()
    page = await client.get("/login")
    response = await client.post(
        "/login",
        data={"username": name, "password": "not the password", "csrf_token": csrf_from(page.text)},
    )
    assert response.status_code == 401
    assert response.headers["content-type"].startswith("text/html")
    assert BAD_LOGIN in response.text
    assert (await client.get("/api/me")).status_code == 401


async def test_login_form_is_throttled_with_retry_after(client: httpx.AsyncClient) -> None:
    name, _ = await register(client)
    page = await client.get("/login")
    token = csrf_from(page.text)
    for _ in range(5):
        response = await client.post(
            "/login", data={"username": name, "password": "wrong password", "csrf_token": token}
        )
        assert response.status_code == 401
    response = await client.post(
        "/login", data={"username": name, "password": PASSWORD, "csrf_token": token}
    )
    assert response.status_code == 429
    assert int(response.headers["Retry-After"]) >= 1
    assert "Too many failed log-ins" in response.text
    assert (await client.get("/api/me")).status_code == 401


async def test_logout_clears_the_session(client: httpx.AsyncClient) -> None:
    await browser_signup(client)
    page = await client.get("/")
    assert (await client.get("/api/me")).status_code == 200
    response = await client.post("/logout", data={"csrf_token": csrf_from(page.text)})
    assert response.status_code == 303
    assert response.headers["location"] == "/"
    assert (await client.get("/api/me")).status_code == 401
    home = await client.get("/")
    assert 'href="/login"' in home.text


async def test_logout_without_csrf_is_403_and_keeps_the_session(client: httpx.AsyncClient) -> None:
    await browser_signup(client)
    response = await client.post("/logout", data={})
    assert response.status_code == 403
    assert (await client.get("/api/me")).status_code == 200


async def test_logging_in_replaces_the_anonymous_csrf_token(client: httpx.AsyncClient) -> None:
    name, _ = await register(client)
    page = await client.get("/login")
    anonymous_token = csrf_from(page.text)
    response = await client.post(
        "/login", data={"username": name, "password": PASSWORD, "csrf_token": anonymous_token}
    )
    assert response.status_code == 303
    stale = await client.post("/logout", data={"csrf_token": anonymous_token})
    assert stale.status_code == 403
    fresh = csrf_from((await client.get("/")).text)
    assert fresh != anonymous_token
    assert (await client.post("/logout", data={"csrf_token": fresh})).status_code == 303


@pytest.mark.parametrize(
    "target",
    [
        "https://evil.example/",
        "http://evil.example/lessons",
        "//evil.example/",
        "///evil.example/",
        "javascript:alert(1)",
        "evil.example",
        "",
    ],
)
async def test_login_next_redirects_only_to_same_site_paths(
    client: httpx.AsyncClient, target: str
) -> None:
    name, _ = await register(client)
    page = await client.get("/login")
    response = await client.post(
        "/login",
        data={
            "username": name,
            "password": PASSWORD,
            "csrf_token": csrf_from(page.text),
            "next": target,
        },
    )
    assert response.status_code == 303
    assert response.headers["location"] == "/"


@pytest.mark.parametrize("target", ["/\\evil.example/", "/\t/evil.example/", "/%5Cevil.example"])
async def test_login_next_never_yields_a_protocol_relative_location(
    client: httpx.AsyncClient, target: str
) -> None:
    """Browsers read `/\\host` (and `/<tab>/host`) as `//host`: such a Location would leave."""
    name, _ = await register(client)
    page = await client.get("/login")
    response = await client.post(
        "/login",
        data={
            "username": name,
            "password": PASSWORD,
            "csrf_token": csrf_from(page.text),
            "next": target,
        },
    )
    assert response.status_code == 303
    location = response.headers["location"]
    assert location.startswith("/")
    normalised = location.replace("\\", "/").replace("\t", "").replace("\n", "")
    assert not normalised.startswith("//")


async def test_login_page_sanitises_next_in_its_form(client: httpx.AsyncClient) -> None:
    page = await client.get("/login", params={"next": "https://evil.example/"})
    assert page.status_code == 200
    assert "evil.example" not in page.text
    assert 'name="next" value="/"' in page.text


async def test_logged_in_visit_to_login_redirects_to_a_safe_next(client: httpx.AsyncClient) -> None:
    await browser_signup(client)
    response = await client.get("/login", params={"next": "https://evil.example/"})
    assert response.status_code == 303
    assert response.headers["location"] == "/"
    response = await client.get("/signup", params={"next": "/lessons/gpu-support"})
    assert response.status_code == 303
    assert response.headers["location"] == "/lessons/gpu-support"


async def test_session_cookie_is_httponly_and_samesite_lax(client: httpx.AsyncClient) -> None:
    cookie = (await _session_cookie_header(client)).lower()
    attributes = [part.strip() for part in cookie.split(";")]
    assert "httponly" in attributes
    assert "samesite=lax" in attributes
    assert "path=/" in attributes


async def test_anonymous_session_cookie_is_httponly_too(client: httpx.AsyncClient) -> None:
    page = await client.get("/login")
    [cookie] = [c for c in _set_cookie_headers(page) if c.startswith("session=")]
    attributes = [part.strip().lower() for part in cookie.split(";")]
    assert "httponly" in attributes
    assert "samesite=lax" in attributes


async def test_session_cookie_is_signed(client: httpx.AsyncClient) -> None:
    """Claiming another user id in the cookie's payload breaks the signature."""
    await browser_signup(client)
    me = await client.get("/api/me")
    assert me.status_code == 200
    payload, _, signature = client.cookies["session"].partition(".")
    session = json.loads(base64.b64decode(payload))
    assert session["uid"] == me.json()["id"]
    forged = base64.b64encode(json.dumps(session | {"uid": session["uid"] + 1}).encode())
    client.cookies.set("session", forged.decode() + "." + signature)
    assert (await client.get("/api/me")).status_code == 401


async def test_account_page_needs_a_login_and_shows_the_user(client: httpx.AsyncClient) -> None:
    anonymous = await client.get("/account")
    assert anonymous.status_code == 303
    assert anonymous.headers["location"].startswith("/login")
    name = await browser_signup(client)
    page = await client.get("/account")
    assert page.status_code == 200
    assert name in page.text


async def test_account_page_issues_a_working_api_token(client: httpx.AsyncClient) -> None:
    await browser_signup(client)
    page = await client.get("/account")
    response = await client.post("/account/tokens", data={"csrf_token": csrf_from(page.text)})
    assert response.status_code == 200
    match = re.search(r'<code class="token">([^<]+)</code>', response.text)
    assert match
    client.cookies.clear()
    me = await client.get("/api/me", headers=bearer(match.group(1)))
    assert me.status_code == 200


async def test_odd_form_posts_are_refused_without_a_server_error(client: httpx.AsyncClient) -> None:
    page = await client.get("/login")
    token = csrf_from(page.text)
    too_long = await client.post(
        "/login", data={"username": "x" * 201, "password": PASSWORD, "csrf_token": token}
    )
    assert too_long.status_code == 422
    as_file = await client.post(
        "/login",
        data={"csrf_token": token, "password": PASSWORD},
        files={"username": ("name.txt", b"someone", "text/plain")},
    )
    assert as_file.status_code in {401, 422}
    assert (await client.get("/api/me")).status_code == 401
