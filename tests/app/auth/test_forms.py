"""The account forms under hostile input (overlong, empty, odd Unicode): each answers with
the form again, what was typed kept (never a password) and one message per field that
names the field and its rule, in place of the field's help text; usernames read capitals
as lowercase at sign-up and log-in alike."""

from __future__ import annotations

import re

import httpx
import pytest

from tests.helpers import browser_signup, csrf_from, unique_name

PASSWORD = "correct horse"


def field_errors(html: str) -> dict[str, str]:
    return dict(re.findall(r'<p id="([\w-]+)-error" class="field-error"[^>]*>([^<]*)<', html))


async def post(client: httpx.AsyncClient, path: str, data: dict[str, str]) -> httpx.Response:
    page = await client.get("/signup" if path == "/signup" else "/login")
    return await client.post(path, data=data | {"csrf_token": csrf_from(page.text)})


@pytest.mark.parametrize(
    ("username", "password", "errors"),
    [
        (
            "ok-name",
            "x" * 5000,
            {"password": "Password: use at most 1024 characters (this has 5000)."},
        ),
        (
            "",
            "",
            {"username": "Username: fill this in.", "password": "Password: fill this in."},
        ),
        (
            "ab",
            "short",
            {
                "username": "Username: use at least 3 characters (this has 2).",
                "password": "Password: use at least 8 characters (this has 5).",
            },
        ),
        (
            "a" * 5000,
            PASSWORD,
            {"username": "Username: use at most 32 characters (this has 5000)."},
        ),
        (
            "élodie ü",
            PASSWORD,
            {
                "username": "Username: use only lowercase letters a–z, digits and _ . -"
                " (not “é”, “ ”, “ü”)."
            },
        ),
        (
            "\u212aate" + unique_name()[:4],
            PASSWORD,
            {
                "username": "Username: use only lowercase letters a–z, digits and _ . -"
                " (not “\u212a”)."
            },
        ),
    ],
)
async def test_signup_refusals_keep_the_form_and_name_field_and_rule(
    client: httpx.AsyncClient, username: str, password: str, errors: dict[str, str]
) -> None:
    response = await post(client, "/signup", {"username": username, "password": password})
    assert response.status_code == 422
    assert field_errors(response.text) == errors
    assert "Something is not right" not in response.text
    assert f'value="{username}"' in response.text
    if password:
        assert password not in response.text.replace(username, "")  # never the password
    # The error takes the help text's place: the rule is said once.
    for field in errors:
        assert f'id="{field}-help"' not in response.text
    assert (await client.get("/api/me")).status_code == 401


async def test_capitals_in_a_username_are_read_as_lowercase_at_signup_and_login(
    client: httpx.AsyncClient,
) -> None:
    name = unique_name("Alice")
    response = await post(client, "/signup", {"username": name, "password": PASSWORD})
    assert response.status_code == 303
    me = await client.get("/api/me")
    assert me.json()["username"] == name.lower()
    for typed in (name.upper(), f"  {name} "):
        client.cookies.clear()  # logged out
        logged = await post(client, "/login", {"username": typed, "password": PASSWORD})
        assert logged.status_code == 303, typed
    client.cookies.clear()
    # Taken whatever the case it is typed in.
    taken = await post(client, "/signup", {"username": name.upper(), "password": PASSWORD})
    assert taken.status_code == 409


async def test_the_api_keeps_its_lowercase_contract(client: httpx.AsyncClient) -> None:
    response = await client.post(
        "/api/auth/register", json={"username": "Alice" + unique_name()[:6], "password": PASSWORD}
    )
    assert response.status_code == 422


@pytest.mark.parametrize(
    ("username", "password", "errors"),
    [
        ("", "", {"username": "Username: fill this in.", "password": "Password: fill this in."}),
        (
            "a" * 5000,
            PASSWORD,
            {"username": "Username: use at most 32 characters (this has 5000)."},
        ),
        (
            "alice",
            "x" * 5000,
            {"password": "Password: use at most 1024 characters (this has 5000)."},
        ),
    ],
)
async def test_login_refusals_keep_the_form_and_name_the_field(
    client: httpx.AsyncClient, username: str, password: str, errors: dict[str, str]
) -> None:
    response = await post(client, "/login", {"username": username, "password": password})
    assert response.status_code == 422
    assert field_errors(response.text) == errors
    assert f'value="{username}"' in response.text


@pytest.mark.parametrize(
    ("name", "days", "errors"),
    [
        (
            "n" * 5000,
            "30",
            {"token-name": "Token name: use at most 100 characters (this has 5000)."},
        ),
        ("laptop", "abc", {"token-days": "Expires after: pick one of the listed durations."}),
        ("laptop", "99999", {"token-days": "Expires after: pick one of the listed durations."}),
    ],
)
async def test_token_form_refusals_keep_the_name_and_name_the_field(
    client: httpx.AsyncClient, name: str, days: str, errors: dict[str, str]
) -> None:
    await browser_signup(client)
    page = await client.get("/account")
    response = await client.post(
        "/account/tokens",
        data={"name": name, "expires_in_days": days, "csrf_token": csrf_from(page.text)},
    )
    assert response.status_code == 422
    assert field_errors(response.text) == errors
    assert f'value="{name}"' in response.text
    assert "You have no API tokens." in response.text  # nothing was made


async def test_odd_unicode_token_names_are_kept(client: httpx.AsyncClient) -> None:
    await browser_signup(client)
    page = await client.get("/account")
    name = "dizüstü 💻 \u202eevil"
    response = await client.post(
        "/account/tokens",
        data={"name": name, "expires_in_days": "30", "csrf_token": csrf_from(page.text)},
    )
    assert response.status_code == 200
    assert name in response.text
