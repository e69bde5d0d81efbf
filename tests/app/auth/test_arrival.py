"""Sent to log in: the log-in and sign-up pages say why (a pending answer, the class a join
link is for), offer each other with the same place to go back to, and return there."""

from __future__ import annotations

import html
import re
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest

from app.auth.arrival import safe_next
from app.classes import service as classes
from app.config import Settings
from app.db import Database
from tests.app.auth.conftest import ClientAt
from tests.app.classes.conftest import add_person
from tests.conftest import test_settings
from tests.helpers import csrf_from, register, unique_name

PASSWORD = "correct horse"
HTML = {"Accept": "text/html"}
QUESTION = "gpu-support-same-device"
BACK = f"/lessons/gpu-support#q-{QUESTION}"
GUESSES = 3


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return test_settings(tmp_path, join_guesses_per_address=GUESSES)


def _field(page: str, name: str) -> str | None:
    match = re.search(rf'<input type="hidden" name="{name}" value="([^"]*)">', page)
    return html.unescape(match.group(1)) if match else None


def _link(page: str, text: str) -> str:
    """The address of the page's own link `text` (not the header's)."""
    match = re.search(rf'<a href="([^"]+)">{text}</a>', page.split('<main id="main"')[1])
    assert match, f"no link {text!r}"
    return html.unescape(match.group(1))


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("/lessons/gpu-support", "/lessons/gpu-support"),
        (BACK, BACK),
        ("/join/K7MP4QXR", "/join/K7MP4QXR"),
        ("/classes?page=2", "/classes?page=2"),
        (None, "/"),
        ("", "/"),
        ("https://evil.example/", "/"),
        ("//evil.example/", "/"),
        ("/\\evil.example/", "/"),
        ("/\t/evil.example/", "/"),
        ("/\n/evil.example/", "/"),
        ("javascript:alert(1)", "/"),
        ("lessons/x", "/"),
        ("/" + "x" * 600, "/"),
    ],
)
def test_next_is_a_path_of_this_site(target: str | None, expected: str) -> None:
    assert safe_next(target) == expected


async def test_an_answer_given_logged_out_comes_back_after_log_in(
    client: httpx.AsyncClient,
) -> None:
    name, _ = await register(client)
    page = await client.get("/login", params={"next": BACK, "why": "answer"}, headers=HTML)
    assert "Log in or create an account to check your answer." in page.text
    assert "filled in again" in page.text
    assert _field(page.text, "next") == BACK
    assert _field(page.text, "why") == "answer"
    # Sign-up instead keeps the same way back.
    assert (
        _link(page.text, "Create an account") == f"/signup?next={quote(BACK, safe='')}&why=answer"
    )
    response = await client.post(
        "/login",
        data={
            "username": name,
            "password": PASSWORD,
            "csrf_token": csrf_from(page.text),
            "next": BACK,
            "why": "answer",
        },
    )
    assert response.status_code == 303
    assert response.headers["location"] == BACK


async def test_a_failed_log_in_keeps_the_reason_and_the_way_back(
    client: httpx.AsyncClient,
) -> None:
    name, _ = await register(client)
    page = await client.get("/login", params={"next": BACK, "why": "answer"}, headers=HTML)
    refused = await client.post(
        "/login",
        data={
            "username": name,
            "password": "not the password",
            "csrf_token": csrf_from(page.text),
            "next": BACK,
            "why": "answer",
        },
        headers=HTML,
    )
    assert refused.status_code == 401
    assert "to check your answer" in refused.text
    assert _field(refused.text, "next") == BACK
    assert _field(refused.text, "why") == "answer"


async def test_sign_up_says_why_and_returns_to_the_question(client: httpx.AsyncClient) -> None:
    page = await client.get("/signup", params={"next": BACK, "why": "answer"}, headers=HTML)
    assert "to check your answer" in page.text
    assert _link(page.text, "Log in") == f"/login?next={quote(BACK, safe='')}&why=answer"
    response = await client.post(
        "/signup",
        data={
            "username": unique_name(),
            "password": PASSWORD,
            "csrf_token": csrf_from(page.text),
            "next": BACK,
            "why": "answer",
        },
    )
    assert response.status_code == 303
    assert response.headers["location"] == BACK


@pytest.mark.parametrize("path", ["/login", "/signup"])
async def test_an_unknown_reason_is_ignored(client: httpx.AsyncClient, path: str) -> None:
    page = await client.get(path, params={"next": "/account", "why": "<script>"}, headers=HTML)
    assert page.status_code == 200
    assert "<script>" not in page.text.split("</head>")[1]
    assert _field(page.text, "why") is None
    assert "you will be brought back to where you were" in page.text


async def test_no_reason_without_a_place_to_go_back_to(client: httpx.AsyncClient) -> None:
    page = await client.get("/login", headers=HTML)
    assert 'class="alert arrival"' not in page.text
    assert _link(page.text, "Create an account") == "/signup"


async def test_a_join_link_opened_logged_out_names_the_class_and_stays_pending(
    client: httpx.AsyncClient, db: Database
) -> None:
    async with db.sessionmaker() as session, session.begin():
        teacher = await add_person(session, "teacher")
        mine = await classes.create_class(
            session=session, teacher_id=teacher.id, name="PyTorch <group B>"
        )
    link = f"/join/{mine.join_code}"
    sent = await client.get(link, headers=HTML)
    assert sent.status_code == 303
    login = await client.get(sent.headers["location"], headers=HTML)
    assert "to join the class “PyTorch &lt;group B&gt;”" in login.text
    assert _field(login.text, "next") == link
    signup_link = _link(login.text, "Create an account")
    assert signup_link == f"/signup?next={quote(link, safe='')}"
    signup = await client.get(signup_link, headers=HTML)
    assert "to join the class “PyTorch &lt;group B&gt;”" in signup.text
    made = await client.post(
        "/signup",
        data={
            "username": unique_name(),
            "password": PASSWORD,
            "csrf_token": csrf_from(signup.text),
            "next": link,
        },
    )
    assert made.status_code == 303
    assert made.headers["location"] == link
    # Back at the link: asked to confirm, not joined yet.
    confirm = await client.get(link, headers=HTML)
    assert confirm.status_code == 200
    assert "Join <strong>PyTorch &lt;group B&gt;</strong>?" in confirm.text
    assert "You join as" in confirm.text
    assert (await client.get("/api/classes/joined")).json() == []
    joined = await client.post(link, data={"csrf_token": csrf_from(confirm.text)})
    assert joined.status_code == 303
    assert [c["name"] for c in (await client.get("/api/classes/joined")).json()] == [mine.name]


async def test_the_log_in_page_tells_no_guesser_which_codes_exist(
    client_at: ClientAt, db: Database
) -> None:
    """A code no class has is counted against the address, like a student's guess: after
    GUESSES of them, not even a real code is named."""
    async with db.sessionmaker() as session, session.begin():
        teacher = await add_person(session, "teacher")
        real = await classes.create_class(session=session, teacher_id=teacher.id, name="Real")
        archived = await classes.create_class(session=session, teacher_id=teacher.id, name="Old")
        await classes.set_archived(session=session, classroom=archived, archived=True)
    async with client_at("198.51.100.7") as guesser:
        named = await guesser.get(f"/login?next=/join/{real.join_code}", headers=HTML)
        assert "to join the class “Real”" in named.text
        old = await guesser.get(f"/login?next=/join/{archived.join_code}", headers=HTML)
        assert "Log in or create an account to join a class." in old.text
        for guess in range(GUESSES):
            wrong = await guesser.get(f"/login?next=/join/NOPE{guess}", headers=HTML)
            assert "Log in or create an account to join a class." in wrong.text
        refused = await guesser.get(f"/login?next=/join/{real.join_code}", headers=HTML)
        assert "Real" not in refused.text.split("<main")[1]
        assert "Log in or create an account to join a class." in refused.text
    async with client_at("198.51.100.8") as other:
        elsewhere = await other.get(f"/login?next=/join/{real.join_code}", headers=HTML)
        assert "to join the class “Real”" in elsewhere.text
