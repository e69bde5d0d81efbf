"""Log-in throttling as an attacker would try it: nobody can lock another person out, the
wait grows with each failure, a NAT'ed school is not one big account, spraying is
refused at its source, and one user's burst of log-ins cannot starve another's."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select

from app.auth.router import BAD_LOGIN
from app.config import Settings
from app.db import Database
from app.main import create_app
from app.models import LoginFailure
from tests.app.auth.conftest import ClientAt, FileApp, client_for
from tests.conftest import test_settings as settings_for
from tests.helpers import register, unique_name

PASSWORD = "correct horse"
ATTACKER = "198.51.100.66"
VICTIM_HOME = "203.0.113.10"
SCHOOL = "192.0.2.1"


async def _try(
    client: httpx.AsyncClient, username: str, password: str = "wrong password"
) -> httpx.Response:
    return await client.post("/api/auth/token", json={"username": username, "password": password})


async def _fail(client: httpx.AsyncClient, username: str, times: int) -> None:
    for _ in range(times):
        assert (await _try(client, username)).status_code in {401, 429}


async def _age_failures(db: Database, username: str, seconds: float) -> None:
    """As if the failures of `username` had happened `seconds` earlier."""
    async with db.sessionmaker() as session, session.begin():
        failures = await session.scalars(
            select(LoginFailure).where(LoginFailure.username == username)
        )
        for failure in failures:
            failure.created_at -= timedelta(seconds=seconds)


async def test_failures_elsewhere_never_lock_the_owner_out(
    client: httpx.AsyncClient, client_at: ClientAt
) -> None:
    name, _ = await register(client)
    async with client_at(ATTACKER) as attacker:
        await _fail(attacker, name, 30)
        # The guessing address is held back, the right password included...
        assert (await _try(attacker, name, PASSWORD)).status_code == 429
    # ...while the owner, at home, gets in at once.
    async with client_at(VICTIM_HOME) as owner:
        response = await _try(owner, name, PASSWORD)
        assert response.status_code == 200, response.text
        page = await owner.get("/login")
        assert page.status_code == 200


async def test_the_owner_gets_in_by_the_page_too(
    client: httpx.AsyncClient, client_at: ClientAt
) -> None:
    name, _ = await register(client)
    async with client_at(ATTACKER) as attacker:
        await _fail(attacker, name, 10)
    async with client_at(VICTIM_HOME) as owner:
        page = await owner.get("/login")
        token = page.text.split('name="csrf_token" value="')[1].split('"')[0]
        response = await owner.post(
            "/login", data={"username": name, "password": PASSWORD, "csrf_token": token}
        )
        assert response.status_code == 303
        assert (await owner.get("/api/me")).json()["username"] == name


async def test_the_wait_doubles_with_each_failure_up_to_the_cap(
    client: httpx.AsyncClient, client_at: ClientAt, db: Database, settings: Settings
) -> None:
    base, cap = settings.login_backoff_base_s, settings.login_backoff_max_s
    name, _ = await register(client)
    waits = []
    async with client_at(ATTACKER) as attacker:
        for _ in range(settings.login_failure_limit):
            assert (await _try(attacker, name)).status_code == 401
        for _ in range(3):
            refused = await _try(attacker, name, PASSWORD)
            assert refused.status_code == 429
            assert refused.json()["detail"].startswith("Too many failed log-ins")
            waits.append(int(refused.headers["Retry-After"]))
            await _age_failures(db, name, waits[-1] + 1)  # wait it out
            assert (await _try(attacker, name)).status_code == 401  # and fail once more
        assert base - 2 <= waits[0] <= base + 1
        assert waits[1] >= 2 * waits[0] - 2 and waits[2] >= 2 * waits[1] - 2, waits
        # Long after, the wait stops growing at the cap.
        await _fail(attacker, name, 10)
        async with db.sessionmaker() as session, session.begin():
            session.add_all(LoginFailure(username=name, client=ATTACKER) for _ in range(40))
        refused = await _try(attacker, name, PASSWORD)
        assert refused.status_code == 429
        assert cap - 2 <= int(refused.headers["Retry-After"]) <= cap + 1


async def test_the_right_password_after_waiting_clears_the_failures(
    client: httpx.AsyncClient, client_at: ClientAt, db: Database
) -> None:
    name, _ = await register(client)
    async with client_at(ATTACKER) as somewhere:
        await _fail(somewhere, name, 5)
        assert (await _try(somewhere, name, PASSWORD)).status_code == 429
        await _age_failures(db, name, 31)
        assert (await _try(somewhere, name, PASSWORD)).status_code == 200
        # A fresh start: the next typo does not wait.
        assert (await _try(somewhere, name)).status_code == 401
        assert (await _try(somewhere, name, PASSWORD)).status_code == 200


async def test_classmates_failing_behind_one_nat_do_not_block_the_others(
    client: httpx.AsyncClient, client_at: ClientAt
) -> None:
    """A school behind one address: several students mistype their passwords many times;
    every other student of the school still logs in."""
    careful, _ = await register(client)
    async with client_at(SCHOOL) as school:
        for _ in range(5):
            clumsy, _ = await register(client)
            await _fail(school, clumsy, 6)
        response = await _try(school, careful, PASSWORD)
        assert response.status_code == 200, response.text


async def test_spraying_many_usernames_is_refused_at_its_source_only(
    client: httpx.AsyncClient, db: Database, tmp_path: Path
) -> None:
    strict = create_app(settings_for(tmp_path, login_address_failure_limit=3), database=db)
    name, _ = await register(client)
    async with client_for(strict, ATTACKER) as sprayer:
        for _ in range(3):
            assert (await _try(sprayer, unique_name())).status_code == 401
        refused = await _try(sprayer, name, PASSWORD)
        assert refused.status_code == 429
        assert 1 <= int(refused.headers["Retry-After"]) <= 3601
    async with client_for(strict, VICTIM_HOME) as elsewhere:
        assert (await _try(elsewhere, name, PASSWORD)).status_code == 200
        assert (await _try(elsewhere, unique_name())).json() == {"detail": BAD_LOGIN}


async def test_successful_log_ins_are_capped_per_user(
    client: httpx.AsyncClient, db: Database, tmp_path: Path
) -> None:
    strict = create_app(settings_for(tmp_path, login_successes_per_user_per_minute=3), database=db)
    name, _ = await register(client)
    other, _ = await register(client)
    async with client_for(strict) as script:
        for _ in range(3):
            assert (await _try(script, name, PASSWORD)).status_code == 200
        refused = await _try(script, name, PASSWORD)
        assert refused.status_code == 429
        assert refused.json()["detail"].startswith("Too many log-ins")
        assert 1 <= int(refused.headers["Retry-After"]) <= 60
        assert (await _try(script, other, PASSWORD)).status_code == 200


async def test_successful_log_ins_are_capped_per_address(
    client: httpx.AsyncClient, db: Database, tmp_path: Path
) -> None:
    strict = create_app(
        settings_for(tmp_path, login_successes_per_address_per_minute=2), database=db
    )
    names = [(await register(client))[0] for _ in range(3)]
    async with client_for(strict, ATTACKER) as busy:
        for name in names[:2]:
            assert (await _try(busy, name, PASSWORD)).status_code == 200
        assert (await _try(busy, names[2], PASSWORD)).status_code == 429
    async with client_for(strict, VICTIM_HOME) as elsewhere:
        assert (await _try(elsewhere, names[2], PASSWORD)).status_code == 200


@pytest.mark.usefixtures("real_password_hashing")
async def test_a_burst_of_one_users_log_ins_does_not_starve_another(file_app: FileApp) -> None:
    """Two dozen parallel log-ins of one user: only a few are hashed at once, the rest are
    told to come back, and another user's log-in goes through meanwhile."""
    async with client_for(file_app.app) as setup:
        greedy, _ = await register(setup)
        patient, _ = await register(setup)

    async def log_in(name: str, address: str) -> int:
        async with client_for(file_app.app, address) as client:
            return (await _try(client, name, PASSWORD)).status_code

    burst = [log_in(greedy, f"198.51.100.{i}") for i in range(1, 25)]
    *answers, other = await asyncio.gather(*burst, log_in(patient, VICTIM_HOME))
    assert other == 200
    assert set(answers) == {200, 429}, answers
