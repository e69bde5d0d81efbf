"""Passwords after NIST SP 800-63B: at least 8 characters, long passphrases welcome, never
the username or a commonly used password, no composition rules; the same rules and clear
errors in the API, the sign-up page and the command line."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest

from app import cli
from app.auth import passwords
from tests.helpers import bearer, csrf_from, unique_name

COMMON = ["password", "12345678", "iloveyou", "qwertyuiop", "Password1", "sunshine1", "trustno1"]
PATTERNS = ["aaaaaaaa", "abababab", "12341234", "abcdefgh", "98765432", "zzzzzzzzzzzzzzzz"]


async def _register(client: httpx.AsyncClient, username: str, password: str) -> httpx.Response:
    return await client.post(
        "/api/auth/register", json={"username": username, "password": password}
    )


def _password_error(response: httpx.Response) -> dict[str, Any]:
    [error] = [e for e in response.json()["detail"] if e["loc"] == ["body", "password"]]
    return error


@pytest.mark.parametrize("password", COMMON)
async def test_a_common_password_is_422_naming_the_field(
    client: httpx.AsyncClient, password: str
) -> None:
    response = await _register(client, unique_name(), password)
    assert response.status_code == 422
    error = _password_error(response)
    assert error["type"] == "password_common"
    assert "commonly used" in error["msg"]


@pytest.mark.parametrize("password", PATTERNS)
async def test_a_repeated_or_consecutive_run_is_refused(
    client: httpx.AsyncClient, password: str
) -> None:
    response = await _register(client, unique_name(), password)
    assert response.status_code == 422
    assert _password_error(response)["type"] == "password_pattern"


@pytest.mark.parametrize("spelling", ["{}", "{upper}", "{title}"])
async def test_the_username_as_password_is_refused_in_any_case(
    client: httpx.AsyncClient, spelling: str
) -> None:
    name = unique_name("student")
    password = spelling.format(name, upper=name.upper(), title=name.title())
    response = await _register(client, name, password)
    assert response.status_code == 422
    error = _password_error(response)
    assert error["type"] == "password_is_username"
    assert "username" in error["msg"]


@pytest.mark.parametrize(
    "password",
    [
        "tq7-wave",  # eight characters, no rule about their kinds
        "correct horse battery staple",
        "çok güzel bir parola",  # any script
        " ".join(f"word{i}" for i in range(50)),  # a 340-character passphrase
        "x" * 5 + "y" * 1019,  # the longest allowed
    ],
)
async def test_long_passphrases_and_any_characters_are_welcome(
    client: httpx.AsyncClient, password: str
) -> None:
    assert len(password) <= passwords.MAX_LENGTH
    response = await _register(client, unique_name(), password)
    assert response.status_code == 201, response.text
    name = response.json()["user"]["username"]
    token = await client.post("/api/auth/token", json={"username": name, "password": password})
    assert token.status_code == 200
    assert (await client.get("/api/me", headers=bearer(token.json()["token"]))).status_code == 200


async def test_a_5000_character_password_is_a_clear_422(client: httpx.AsyncClient) -> None:
    response = await _register(client, unique_name(), "p" * 2500 + "q" * 2500)
    assert response.status_code == 422
    error = _password_error(response)
    assert error["type"] == "string_too_long"
    log_in = await client.post(
        "/api/auth/token", json={"username": unique_name(), "password": "p" * 5000}
    )
    assert log_in.status_code == 422
    assert log_in.json()["detail"][0]["loc"] == ["body", "password"]


async def _signup_page(client: httpx.AsyncClient, username: str, password: str) -> httpx.Response:
    page = await client.get("/signup")
    return await client.post(
        "/signup",
        data={"username": username, "password": password, "csrf_token": csrf_from(page.text)},
    )


@pytest.mark.parametrize(
    ("password", "message"),
    [
        ("12345678", "among the most commonly used"),
        ("aaaaaaaaaa", "repeated or consecutive"),
        ("{name}", "must not be the username"),
        ("p" * 5000, "Password: use at most 1024 characters (this has 5000)."),
        ("short", "at least 8 characters"),
    ],
)
async def test_the_signup_page_names_the_rule_and_keeps_the_username(
    client: httpx.AsyncClient, password: str, message: str
) -> None:
    name = unique_name()
    response = await _signup_page(client, name, password.format(name=name))
    assert response.status_code == 422
    assert message in response.text
    assert f'value="{name}"' in response.text  # what was typed comes back...
    assert password.format(name=name) not in response.text.replace(f'value="{name}"', "")
    assert 'id="password-error"' in response.text
    assert (await client.get("/api/me")).status_code == 401


async def test_the_signup_page_in_turkish(client: httpx.AsyncClient) -> None:
    page = await client.get("/signup", headers={"Accept-Language": "tr"})
    response = await client.post(
        "/signup",
        data={
            "username": unique_name(),
            "password": "qwertyuiop",
            "csrf_token": csrf_from(page.text),
        },
        headers={"Accept-Language": "tr"},
    )
    assert response.status_code == 422
    assert "en sık kullanılan parolalardan biri" in response.text


async def test_a_5000_character_password_on_the_login_page_is_a_form_error(
    client: httpx.AsyncClient,
) -> None:
    page = await client.get("/login")
    response = await client.post(
        "/login",
        data={"username": "someone", "password": "p" * 5000, "csrf_token": csrf_from(page.text)},
    )
    assert response.status_code == 422
    assert "Password: use at most 1024 characters (this has 5000)." in response.text
    assert 'action="/login"' in response.text
    assert 'value="someone"' in response.text


async def test_the_command_line_refuses_a_common_password(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'cli.db'}")
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.setenv("APP_USER_PASSWORD", "iloveyou")
    assert await asyncio.to_thread(cli.main, ["create-user", "--username", "ada"]) == 1
    assert "commonly used" in capsys.readouterr().err


def test_the_common_list_is_a_well_known_one_and_loaded_once() -> None:
    common = passwords.common_passwords()
    assert len(common) >= 30_000
    assert common is passwords.common_passwords()
    assert passwords.problem("correct horse", username="ada") is None
