"""`python -m app create-user`: accounts of any role made on the command line, in the database
it names."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select

from app import cli, migrations
from app.auth.security import verify_password
from app.auth.setup import issue_setup_token
from app.config import Settings, async_database_url
from app.db import Database
from app.models import Role, User

PASSWORD = "a long teacher secret"


@pytest.fixture
def database_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A temporary SQLite file the CLI migrates itself; no password in the environment."""
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    monkeypatch.setenv("DATABASE_URL", url)
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("APP_USER_PASSWORD", raising=False)
    monkeypatch.delenv("ENVIRONMENT", raising=False)
    yield url


async def _cli(*argv: str) -> int:
    # The CLI runs its own event loop (asyncio.run), so it gets a thread of its own.
    return await asyncio.to_thread(cli.main, list(argv))


async def _users(url: str) -> dict[str, User]:
    database = Database.from_url(async_database_url(url))
    try:
        async with database.sessionmaker() as session:
            return {u.username: u for u in (await session.scalars(select(User))).all()}
    finally:
        await database.dispose()


async def test_create_teacher_with_the_password_from_the_environment(
    database_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("APP_USER_PASSWORD", PASSWORD)
    assert await _cli("create-user", "--role", "teacher", "--username", "ada") == 0
    assert "created teacher ada" in capsys.readouterr().out

    users = await _users(database_url)
    assert set(users) == {"ada"}
    assert users["ada"].role == "teacher"
    assert verify_password(PASSWORD, users["ada"].password_hash)
    assert not verify_password("not the password", users["ada"].password_hash)
    assert PASSWORD not in users["ada"].password_hash


async def test_default_role_is_student(database_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("APP_USER_PASSWORD", PASSWORD)
    assert await _cli("create-user", "--username", "grace") == 0
    assert (await _users(database_url))["grace"].role == "student"


@pytest.mark.parametrize("password", ["", "short", "1234567"])
async def test_missing_or_short_password_exits_1(
    database_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    password: str,
) -> None:
    await asyncio.to_thread(migrations.upgrade, async_database_url(database_url))
    monkeypatch.setenv("APP_USER_PASSWORD", password)
    assert await _cli("create-user", "--role", "teacher", "--username", "ada") == 1
    assert "password" in capsys.readouterr().err
    assert await _users(database_url) == {}


async def test_invalid_username_exits_1(
    database_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("APP_USER_PASSWORD", PASSWORD)
    assert await _cli("create-user", "--username", "Not Valid") == 1
    assert "username" in capsys.readouterr().err


async def test_existing_user_without_update_exits_1_and_is_unchanged(
    database_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("APP_USER_PASSWORD", PASSWORD)
    assert await _cli("create-user", "--username", "ada") == 0
    monkeypatch.setenv("APP_USER_PASSWORD", "a different password")
    assert await _cli("create-user", "--role", "teacher", "--username", "ada") == 1
    assert "--update" in capsys.readouterr().err
    user = (await _users(database_url))["ada"]
    assert user.role == "student"
    assert verify_password(PASSWORD, user.password_hash)


async def test_update_resets_role_and_password(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("APP_USER_PASSWORD", PASSWORD)
    assert await _cli("create-user", "--username", "ada") == 0
    monkeypatch.setenv("APP_USER_PASSWORD", "a different password")
    assert await _cli("create-user", "--role", "teacher", "--username", "ada", "--update") == 0
    user = (await _users(database_url))["ada"]
    assert user.role == "teacher"
    assert verify_password("a different password", user.password_hash)
    assert not verify_password(PASSWORD, user.password_hash)


async def test_prompts_for_the_password_when_the_environment_has_none(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = iter([PASSWORD, PASSWORD])
    monkeypatch.setattr("getpass.getpass", lambda prompt="": next(answers))
    assert await _cli("create-user", "--role", "teacher", "--username", "ada") == 0
    user = (await _users(database_url))["ada"]
    assert user.role == "teacher"
    assert verify_password(PASSWORD, user.password_hash)


async def test_prompted_passwords_that_differ_exit_1(
    database_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = iter([PASSWORD, PASSWORD + "!"])
    monkeypatch.setattr("getpass.getpass", lambda prompt="": next(answers))
    assert await _cli("create-user", "--role", "teacher", "--username", "ada") == 1
    assert "differ" in capsys.readouterr().err


async def test_create_user_says_which_database_it_wrote_to(
    database_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A server started with another DATA_DIR reads another database: the command names its
    own, so a teacher who cannot log in is explained at once."""
    monkeypatch.setenv("APP_USER_PASSWORD", PASSWORD)
    assert await _cli("create-user", "--role", "teacher", "--username", "ada") == 0
    out, err = capsys.readouterr()
    path = database_url.removeprefix("sqlite:///")
    assert f"created teacher ada in sqlite:///{path}" in out
    assert "note:" not in err  # DATABASE_URL was set


def test_the_database_is_named_without_its_password() -> None:
    settings = Settings(database_url="postgresql://tc:hunter2secret@db.example:5432/tensorcamp")
    label = cli.database_label(settings)
    assert label == "postgresql://tc:***@db.example:5432/tensorcamp"
    assert "hunter2secret" not in label


def test_a_default_database_comes_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("DATA_DIR", "DATABASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no .env here
    cli._warn_if_default(Settings())
    assert "neither DATA_DIR nor DATABASE_URL is set" in capsys.readouterr().err
    cli._warn_if_default(Settings(data_dir=tmp_path))
    assert capsys.readouterr().err == ""


async def test_an_administrator_made_on_the_command_line_ends_the_setup_tokens(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("APP_USER_PASSWORD", PASSWORD)
    assert await _cli("create-user", "--role", "admin", "--username", "root") == 0
    assert (await _users(database_url))["root"].role == Role.ADMIN
    database = Database.from_url(async_database_url(database_url))
    try:
        async with database.writer() as session, session.begin():
            assert await issue_setup_token(session=session) is None
    finally:
        await database.dispose()
