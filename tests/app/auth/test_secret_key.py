"""The key that signs session cookies: never a published one. Unset, a random key is made
on first start, kept in DATA_DIR with mode 0600, and used again at every later start."""

from __future__ import annotations

import base64
import json
import logging
import stat
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from itsdangerous import TimestampSigner
from pydantic import ValidationError

from app import cli
from app.auth.secret_key import FILE_NAME, SecretKeyError, session_secret
from app.config import DEV_SECRET, Settings
from app.db import Database
from app.main import create_app
from tests.app.auth.conftest import client_for
from tests.conftest import test_settings as settings_for
from tests.helpers import browser_signup

ENVIRONMENTS = ["development", "test", "production"]


def test_an_unset_key_is_made_once_with_mode_0600_and_its_place_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings = settings_for(tmp_path, secret_key="")
    with caplog.at_level(logging.WARNING, logger="app"):
        key = session_secret(settings)
    path = tmp_path / FILE_NAME
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_text().strip() == key
    assert len(key) >= 43
    assert str(path) in caplog.text
    assert [p.name for p in tmp_path.iterdir()] == [FILE_NAME]  # no temporary file left
    assert session_secret(settings) == key  # the next start reads it
    assert session_secret(settings_for(tmp_path / "other", secret_key="")) != key


def test_processes_starting_together_agree_on_one_key(tmp_path: Path) -> None:
    settings = settings_for(tmp_path / "fresh", secret_key="")
    with ThreadPoolExecutor(max_workers=8) as pool:
        keys = set(pool.map(lambda _: session_secret(settings), range(16)))
    assert len(keys) == 1


def test_a_set_key_is_used_as_it_is_and_no_file_is_made(tmp_path: Path) -> None:
    settings = settings_for(tmp_path, secret_key="k" * 40)
    assert session_secret(settings) == "k" * 40
    assert not (tmp_path / FILE_NAME).exists()


def test_a_key_file_others_can_read_is_refused(tmp_path: Path) -> None:
    (tmp_path / FILE_NAME).write_text("x" * 64)
    (tmp_path / FILE_NAME).chmod(0o644)
    with pytest.raises(SecretKeyError, match="chmod 600"):
        session_secret(settings_for(tmp_path, secret_key=""))


def test_an_empty_key_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / FILE_NAME).write_text("\n")
    (tmp_path / FILE_NAME).chmod(0o600)
    with pytest.raises(SecretKeyError, match="no usable key"):
        session_secret(settings_for(tmp_path, secret_key=""))


@pytest.mark.parametrize("environment", ENVIRONMENTS)
@pytest.mark.parametrize("key", [DEV_SECRET, "change-me", "CHANGEME", " secret ", "   "])
def test_a_published_key_is_refused_in_every_environment(environment: str, key: str) -> None:
    with pytest.raises(ValidationError, match="SECRET_KEY"):
        Settings(environment=environment, secret_key=key)


def test_the_command_line_refuses_to_start_with_the_old_development_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'x.db'}")
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.delenv("ENVIRONMENT", raising=False)
    monkeypatch.setenv("SECRET_KEY", DEV_SECRET)
    assert cli.main(["migrate"]) == 2
    assert "SECRET_KEY" in capsys.readouterr().err


async def test_sessions_survive_a_restart_with_the_kept_key(tmp_path: Path, db: Database) -> None:
    settings = settings_for(tmp_path, secret_key="")
    first = create_app(settings, database=db)
    async with client_for(first) as browser:
        name = await browser_signup(browser)
        cookie = browser.cookies["session"]
    again = create_app(settings, database=db)  # the next start
    async with client_for(again) as browser:
        browser.cookies.set("session", cookie)
        me = await browser.get("/api/me")
        assert me.status_code == 200
        assert me.json()["username"] == name


async def test_a_cookie_forged_with_the_published_key_gets_nobody_in(
    tmp_path: Path, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the default install allowed: sign {"uid": <a teacher's id>} with the key in the
    source code. Now the install has its own key (and a session needs a server-side row)."""
    monkeypatch.delenv("SECRET_KEY", raising=False)
    monkeypatch.delenv("ENVIRONMENT", raising=False)
    defaults = Settings(data_dir=tmp_path)
    app = create_app(defaults, database=db)
    async with client_for(app) as victim:
        await browser_signup(victim)
        uid = (await victim.get("/api/me")).json()["id"]
    payload = base64.b64encode(json.dumps({"uid": uid}).encode())
    forged = TimestampSigner(DEV_SECRET).sign(payload).decode()
    async with client_for(app) as attacker:
        attacker.cookies.set("session", forged)
        assert (await attacker.get("/api/me")).status_code == 401


async def test_the_served_app_makes_its_key_in_data_dir(tmp_path: Path, db: Database) -> None:
    app = create_app(settings_for(tmp_path / "data", secret_key=""), database=db)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        assert (await client.get("/login")).status_code == 200
    assert (tmp_path / "data" / FILE_NAME).is_file()
