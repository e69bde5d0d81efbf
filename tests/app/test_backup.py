"""`python -m app backup` and `restore`: made while the server writes, put back whole into a
fresh database with every user, answer and submission, refused where it would lose data,
migrated when older than the code; on SQLite and on a real PostgreSQL."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
import subprocess
import sys
import threading
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from alembic import command
from sqlalchemy import text

from app import migrations
from app.backup import BackupError, backup, restore
from app.config import REPO_ROOT, Settings
from app.db import Database
from app.main import create_app
from tests.conftest import POSTGRES_URL, test_settings
from tests.helpers import bearer, register
from tests.processes import psql

QUESTION = "gpu-support-same-device"  # multiple choice, option 3 is right
EXERCISE = "gpu-support-device-independent"
PASSWORD = "a long teacher secret"


@dataclass
class Place:
    """A database of its own: an SQLite file, or a PostgreSQL database dropped afterwards."""

    backend: str
    url: str
    tmp: Path

    @property
    def database(self) -> str:
        """PostgreSQL's name for it."""
        return self.url.rsplit("/", 1)[1]

    @property
    def settings(self) -> Settings:
        return test_settings(self.tmp, database_url=self.url, grading_enabled=False)


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def places(backend: str, tmp_path: Path) -> Iterator[Any]:
    """Makes fresh, empty databases on the backend (`places(name)`); drops them after."""
    made: list[str] = []

    def make(name: str) -> Place:
        folder = tmp_path / name
        folder.mkdir()
        if backend == "sqlite":
            return Place(backend, f"sqlite:///{folder / 'tensorcamp.db'}", folder)
        database = f"tc_backup_{uuid.uuid4().hex[:10]}"
        psql(f'CREATE DATABASE "{database}"')
        made.append(database)
        return Place(backend, f"{POSTGRES_URL}/{database}", folder)

    yield make
    for database in made:
        psql(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')


@contextlib.asynccontextmanager
async def serving(place: Place) -> AsyncIterator[httpx.AsyncClient]:
    """The app on `place` with its lifespan (migrations, lessons), grading off."""
    app = create_app(place.settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            yield client


async def use_the_site(client: httpx.AsyncClient) -> dict[str, str]:
    """Two students answer and submit through the HTTP API; their tokens by name."""
    tokens = {}
    for choice in (3, 1):
        name, token = await register(client)
        tokens[name] = token
        answer = await client.post(
            f"/api/questions/{QUESTION}/answers", json={"answer": choice}, headers=bearer(token)
        )
        assert answer.status_code == 200, answer.text
        submitted = await client.post(
            f"/api/exercises/{EXERCISE}/submissions",
            json={"code": f"print({choice})  # {name}"},
            headers=bearer(token),
        )
        assert submitted.status_code == 202, submitted.text
    return tokens


CONTENTS = {
    "users": "SELECT id, username, role, password_hash FROM users ORDER BY id",
    "answers": (
        "SELECT id, user_id, question_id, answer, correct FROM question_attempts ORDER BY id"
    ),
    "submissions": "SELECT id, user_id, exercise_id, code, status FROM submissions ORDER BY id",
    "migration": "SELECT version_num FROM alembic_version",
}


async def contents(place: Place) -> dict[str, list[tuple[Any, ...]]]:
    database = Database.from_url(place.settings.effective_database_url)
    try:
        async with database.sessionmaker() as session:
            return {
                name: [tuple(row) for row in (await session.execute(text(query))).all()]
                for name, query in CONTENTS.items()
            }
    finally:
        await database.dispose()


def leftovers(folder: Path, marker: str) -> list[str]:
    """Temporary files a backup or restore left in `folder` (there must be none)."""
    return [path.name for path in folder.iterdir() if marker in path.name]


def head() -> str:
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(migrations.alembic_config("sqlite://")).get_current_head()
    assert head is not None
    return head


async def test_restored_into_a_fresh_database_with_every_user_answer_and_submission(
    places: Any,
) -> None:
    source, fresh = places("source"), places("fresh")
    async with serving(source) as client:
        tokens = await use_the_site(client)
        # Made while the server runs and its connections are open.
        written = await asyncio.to_thread(backup, settings=source.settings)
    made = await contents(source)
    assert {row[1] for row in made["users"]} == set(tokens)
    assert len(made["answers"]) == 2 and len(made["submissions"]) == 2

    assert written.path.parent == source.tmp / "backups"
    assert written.path.stat().st_mode & 0o077 == 0  # it holds password hashes
    assert written.revision == head()

    restored = await asyncio.to_thread(restore, settings=fresh.settings, path=written.path)
    assert not restored.migrated
    assert await contents(fresh) == made
    async with serving(fresh) as client:  # the students carry on where they were
        for token in tokens.values():
            progress = await client.get("/api/me/progress", headers=bearer(token))
            assert progress.status_code == 200


async def test_a_backup_older_than_the_code_is_migrated_as_it_is_restored(places: Any) -> None:
    source, fresh = places("source"), places("fresh")
    async with serving(source) as client:
        tokens = await use_the_site(client)
    url = source.settings.effective_database_url
    await asyncio.to_thread(command.downgrade, migrations.alembic_config(url), "-1")
    written = await asyncio.to_thread(backup, settings=source.settings)
    assert written.revision != head()

    restored = await asyncio.to_thread(restore, settings=fresh.settings, path=written.path)
    assert restored.migrated
    after = await contents(fresh)
    assert after["migration"] == [(head(),)]
    assert {row[1] for row in after["users"]} == set(tokens)
    assert len(after["answers"]) == 2 and len(after["submissions"]) == 2


async def test_sqlite_backup_while_a_write_is_open_and_writes_go_on(tmp_path: Path) -> None:
    """The online backup takes one consistent snapshot: what is committed, never what a
    transaction still holds open, and it does not wait for the writers."""
    source = Place("sqlite", f"sqlite:///{tmp_path / 'tensorcamp.db'}", tmp_path)
    async with serving(source) as client:
        tokens = await use_the_site(client)
        with closing(sqlite3.connect(tmp_path / "tensorcamp.db", isolation_level=None)) as writer:
            writer.execute("BEGIN IMMEDIATE")  # the write lock, held through the backup
            writer.execute("DELETE FROM question_attempts")
            writer.execute("UPDATE users SET username = username || '-half-done'")
            held = await asyncio.to_thread(backup, settings=source.settings)
            writer.execute("ROLLBACK")

        stop = threading.Event()

        def keep_writing() -> None:
            with closing(sqlite3.connect(tmp_path / "tensorcamp.db", timeout=30)) as database:
                while not stop.is_set():
                    with database:
                        database.execute("UPDATE submissions SET attempts = attempts + 1")

        writing = threading.Thread(target=keep_writing)
        writing.start()
        try:
            during = [await asyncio.to_thread(backup, settings=source.settings) for _ in range(3)]
        finally:
            stop.set()
            writing.join()

    for written in (held, *during):
        with closing(sqlite3.connect(written.path)) as copy:
            assert copy.execute("PRAGMA quick_check").fetchone() == ("ok",)
            assert copy.execute("PRAGMA journal_mode").fetchone() == ("delete",)
            assert {name for (name,) in copy.execute("SELECT username FROM users")} == set(tokens)
            assert copy.execute("SELECT count(*) FROM question_attempts").fetchone() == (2,)
    assert not leftovers(tmp_path / "backups", ".partial")


async def test_sqlite_restore_while_the_server_runs_is_seen_whole(tmp_path: Path) -> None:
    """Into the database a running server has open (WAL, pooled connections): the restore
    is one write transaction, and the server's next request sees the backup's data."""
    source = Place("sqlite", f"sqlite:///{tmp_path / 'source.db'}", tmp_path)
    target = Place("sqlite", f"sqlite:///{tmp_path / 'target.db'}", tmp_path)
    async with serving(source) as client:
        kept = await use_the_site(client)
    written = await asyncio.to_thread(backup, settings=source.settings)
    async with serving(target) as client:
        replaced = await use_the_site(client)
        await asyncio.to_thread(restore, settings=target.settings, path=written.path, force=True)
        for token in kept.values():
            assert (await client.get("/api/me/progress", headers=bearer(token))).status_code == 200
        for token in replaced.values():
            assert (await client.get("/api/me/progress", headers=bearer(token))).status_code == 401
    assert await contents(target) == await contents(source)
    assert not leftovers(tmp_path, "restoring")


async def test_a_database_with_users_is_replaced_only_with_force(places: Any) -> None:
    source, target = places("source"), places("target")
    async with serving(source) as client:
        await use_the_site(client)
    written = await asyncio.to_thread(backup, settings=source.settings)
    async with serving(target) as client:
        await use_the_site(client)
    before = await contents(target)

    with pytest.raises(BackupError, match=r"holds 2 user\(s\): nothing was changed.*--force"):
        await asyncio.to_thread(restore, settings=target.settings, path=written.path)
    assert await contents(target) == before

    await asyncio.to_thread(restore, settings=target.settings, path=written.path, force=True)
    assert await contents(target) == await contents(source)


async def test_files_that_are_not_a_backup_of_the_right_kind_are_refused(
    places: Any, tmp_path: Path
) -> None:
    target = places("target")
    async with serving(target) as client:
        tokens = await use_the_site(client)
    before = await contents(target)
    settings = target.settings

    text_file = tmp_path / "notes.txt"
    text_file.write_text("not a backup\n")
    with pytest.raises(BackupError, match="is not a Tensorcamp backup"):
        restore(settings=settings, path=text_file, force=True)
    with pytest.raises(BackupError, match="no such file"):
        restore(settings=settings, path=tmp_path / "missing.dump", force=True)

    other = tmp_path / "other.sqlite3"
    with closing(sqlite3.connect(other)) as database:
        database.execute("CREATE TABLE notes (body TEXT)")
    wrong_kind = "not Tensorcamp's" if target.backend == "sqlite" else "SQLite database"
    with pytest.raises(BackupError, match=wrong_kind):
        restore(settings=settings, path=other, force=True)

    written = await asyncio.to_thread(backup, settings=settings)
    if target.backend == "sqlite":
        with closing(sqlite3.connect(written.path)) as copy, copy:
            copy.execute("UPDATE alembic_version SET version_num = '9999_from_the_future'")
        with pytest.raises(BackupError, match="newer version of Tensorcamp"):
            restore(settings=settings, path=written.path, force=True)
        onto_postgres = test_settings(tmp_path, database_url=f"{POSTGRES_URL}/postgres")
        with pytest.raises(BackupError, match=r"backup of a SQLite database.*is PostgreSQL"):
            restore(settings=onto_postgres, path=written.path, force=True)
    else:
        onto_sqlite = test_settings(tmp_path, database_url=f"sqlite:///{tmp_path / 'x.db'}")
        with pytest.raises(BackupError, match=r"backup of a PostgreSQL database.*is SQLite"):
            restore(settings=onto_sqlite, path=written.path, force=True)

    truncated = tmp_path / f"truncated{written.path.suffix}"
    truncated.write_bytes(written.path.read_bytes()[: written.path.stat().st_size // 2])
    with pytest.raises(BackupError):
        await asyncio.to_thread(restore, settings=settings, path=truncated, force=True)

    assert await contents(target) == before
    assert {row[1] for row in before["users"]} == set(tokens)


@pytest.mark.parametrize("backend", ["postgresql"])
async def test_postgresql_restore_that_fails_midway_changes_nothing(places: Any) -> None:
    """Everything is dropped and loaded in one transaction: an error after the drop (here a
    schema the target has already) rolls all of it back."""
    source, target = places("source"), places("target")
    async with serving(source) as client:
        await use_the_site(client)
    psql("CREATE SCHEMA extra; CREATE TABLE extra.notes (body text)", database=source.database)
    written = await asyncio.to_thread(backup, settings=source.settings)
    async with serving(target) as client:
        await use_the_site(client)
    psql("CREATE SCHEMA extra", database=target.database)
    before = await contents(target)

    with pytest.raises(BackupError, match=r"(?s)psql failed.*already exists"):
        await asyncio.to_thread(restore, settings=target.settings, path=written.path, force=True)
    assert await contents(target) == before


def _cli(*argv: str, data_dir: Path, database_url: str = "") -> subprocess.CompletedProcess[str]:
    """`python -m app ...` as a self-hoster runs it, in a process of its own."""
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DATABASE_URL", "SECRET_KEY", "ENVIRONMENT")
    }
    environment |= {
        "DATA_DIR": str(data_dir),
        "DATABASE_URL": database_url,
        "APP_USER_PASSWORD": PASSWORD,
        "GRADING_ENABLED": "false",
    }
    return subprocess.run(
        [sys.executable, "-m", "app", *argv],
        cwd=REPO_ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_commands_end_to_end(places: Any, tmp_path: Path) -> None:
    source, fresh = places("source"), places("fresh")
    # A password in the URL (the local server trusts, so any will do) must never be shown.
    secret = "do-not-print-me"
    source_url = ""
    if source.backend == "postgresql":
        source_url = source.url.replace("postgres@", f"postgres:{secret}@")
    fresh_url = fresh.url if fresh.backend == "postgresql" else ""
    data, elsewhere = tmp_path / "data", tmp_path / "elsewhere"

    data.mkdir()  # with the key a server made there (SECRET_KEY unset)
    (data / "secret_key").write_text("k" * 64)
    (data / "secret_key").chmod(0o600)
    made = _cli(
        "create-user",
        "--role",
        "teacher",
        "--username",
        "ada",
        data_dir=data,
        database_url=source_url,
    )
    assert made.returncode == 0, made.stderr
    saved = _cli("backup", data_dir=data, database_url=source_url)
    assert saved.returncode == 0, saved.stderr
    [written] = (data / "backups").iterdir()
    assert str(written) in saved.stdout
    assert written.suffix == (".sqlite3" if source.backend == "sqlite" else ".dump")
    if source.backend == "postgresql":
        assert f"postgresql://postgres:***@127.0.0.1:5432/{source.database}" in (saved.stdout)
    else:
        assert f"sqlite:///{data.resolve() / 'tensorcamp.db'}" in saved.stdout
    # SECRET_KEY unset: the key file in DATA_DIR is named as what to keep besides.
    assert f"not in the backup: {data.resolve() / 'secret_key'}" in saved.stdout
    assert secret not in saved.stdout + saved.stderr

    again = _cli("backup", "--output", str(written), data_dir=data, database_url=source_url)
    assert again.returncode == 1 and "exists already" in again.stderr

    put_back = _cli("restore", str(written), data_dir=elsewhere, database_url=fresh_url)
    assert put_back.returncode == 0, put_back.stderr
    assert "restored" in put_back.stdout
    refused = _cli("restore", str(written), data_dir=elsewhere, database_url=fresh_url)
    assert refused.returncode == 1
    assert "holds 1 user(s)" in refused.stderr and "--force" in refused.stderr
    forced = _cli("restore", "--force", str(written), data_dir=elsewhere, database_url=fresh_url)
    assert forced.returncode == 0, forced.stderr

    # The teacher made before the backup exists in the restored database and can act there.
    enabled = _cli("enable-user", "--username", "ada", data_dir=elsewhere, database_url=fresh_url)
    assert enabled.returncode == 0, enabled.stderr
    not_a_backup = _cli(
        "restore", str(REPO_ROOT / "README.md"), data_dir=elsewhere, database_url=fresh_url
    )
    assert not_a_backup.returncode == 1
    assert "is not a Tensorcamp backup" in not_a_backup.stderr


SCRIPT = REPO_ROOT / "docker" / "tensorcamp-backup"


def _service(*argv: str, database: str, backups: Path) -> subprocess.CompletedProcess[str]:
    """The compose `backup` service's script, run here against the local server."""
    environment = dict(os.environ) | {
        "PGHOST": "127.0.0.1",
        "PGUSER": "postgres",
        "PGDATABASE": database,
        "PGPASSWORD": "do-not-print-me",
        "BACKUPS": str(backups),
        "MIGRATIONS": str(REPO_ROOT / "alembic" / "versions"),
        "EMPTY_SCHEMA": str(REPO_ROOT / "app" / "backup" / "empty_schema.sql"),
    }
    return subprocess.run(
        [str(SCRIPT), *argv], env=environment, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("backend", ["postgresql"])
async def test_the_compose_backup_service_makes_and_restores_the_same_files(
    places: Any, tmp_path: Path
) -> None:
    source, fresh, target = places("source"), places("fresh"), places("target")
    async with serving(source) as client:
        await use_the_site(client)
    async with serving(target) as client:
        await use_the_site(client)
    backups = tmp_path / "backups"

    saved = await asyncio.to_thread(_service, "backup", database=source.database, backups=backups)
    assert saved.returncode == 0, saved.stderr
    [written] = backups.iterdir()
    assert f"postgresql://postgres:***@127.0.0.1:5432/{source.database}" in saved.stdout
    assert str(written) in saved.stdout and "do-not-print-me" not in saved.stdout
    assert written.stat().st_mode & 0o077 == 0
    # What the service wrote, the app restores; and the other way round.
    await asyncio.to_thread(restore, settings=fresh.settings, path=written)
    assert await contents(fresh) == await contents(source)

    own = await asyncio.to_thread(backup, settings=source.settings, output=tmp_path)
    before = await contents(target)
    refused = await asyncio.to_thread(
        _service, "restore", str(own.path), database=target.database, backups=backups
    )
    assert refused.returncode == 1
    assert "holds 2 user(s): nothing was changed" in refused.stderr
    assert await contents(target) == before
    forced = await asyncio.to_thread(
        _service, "restore", str(own.path), "--force", database=target.database, backups=backups
    )
    assert forced.returncode == 0, forced.stderr
    assert await contents(target) == await contents(source)

    sqlite_file = tmp_path / "other.sqlite3"
    with closing(sqlite3.connect(sqlite_file)) as database:
        database.execute("CREATE TABLE notes (body TEXT)")
    wrong = await asyncio.to_thread(
        _service, "restore", str(sqlite_file), "--force", database=target.database, backups=backups
    )
    assert wrong.returncode == 1 and "not a pg_dump custom-format archive" in wrong.stderr
    assert await contents(target) == await contents(source)


def test_the_compose_service_mounts_what_exists_and_reaches_only_the_database() -> None:
    import yaml

    compose = yaml.safe_load((REPO_ROOT / "docker-compose.yml").read_text())
    service = compose["services"]["backup"]
    assert service["profiles"] == ["backup"]  # never started by `up`
    assert service["networks"] == ["data"]
    assert service["image"] == compose["services"]["postgres"]["image"]  # pg_dump's version
    backups, *files = service["volumes"]
    assert backups == "${BACKUP_DIR:-./backups}:/backups"
    mounts = dict(volume.split(":", 1) for volume in files)
    for source, inside in mounts.items():
        assert (REPO_ROOT / source).exists(), source
        assert inside.endswith(":ro")
    assert service["entrypoint"][0] + ":ro" in mounts.values()
    assert os.access(SCRIPT, os.X_OK)
