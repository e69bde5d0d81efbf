"""SQLite: backups with SQLite's online backup API, which copies a consistent snapshot while
the server reads and writes (WAL), never a file copy that could catch a write half-done."""

from __future__ import annotations

import secrets
import sqlite3
from contextlib import closing
from pathlib import Path
from urllib.request import pathname2url

from sqlalchemy.engine import make_url

from app import migrations
from app.backup.errors import BackupError

BUSY_TIMEOUT_S = 30  # as long as the app waits for the write lock


def database_path(url: str) -> Path:
    name = make_url(url).database
    if not name or name == ":memory:":
        raise BackupError(f"{url}: an in-memory database has nothing to back up or restore into")
    return Path(name)


def _read_only(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{pathname2url(str(path.resolve()))}?mode=ro", uri=True)


def _revision(connection: sqlite3.Connection, what: str) -> str:
    tables = {
        name for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")
    }
    if not {"alembic_version", "users"} <= tables:
        raise BackupError(f"{what} is an SQLite database, but not Tensorcamp's (no users table)")
    row = connection.execute("SELECT version_num FROM alembic_version").fetchone()
    if row is None:
        raise BackupError(f"{what} has no migration recorded: not a Tensorcamp database")
    return str(row[0])


def _check(connection: sqlite3.Connection, what: str) -> None:
    (result,) = connection.execute("PRAGMA quick_check").fetchone()
    if result != "ok":
        raise BackupError(f"{what} is damaged: {result}")


def dump(*, source: Path, output: Path) -> str:
    """Copy the database at `source` into the empty file `output` (one self-contained file,
    no WAL); the migration it is at."""
    if not source.is_file():
        raise BackupError(f"no database at {source}: nothing to back up")
    with (
        closing(sqlite3.connect(source, timeout=BUSY_TIMEOUT_S)) as database,
        closing(sqlite3.connect(output)) as copy,
    ):
        database.backup(copy)  # one step: one read snapshot, writers carry on meanwhile
        copy.execute("PRAGMA journal_mode=DELETE")  # the copy is one file
        _check(copy, str(source))
        return _revision(copy, str(source))


def revision_of_backup(path: Path) -> str:
    try:
        with closing(_read_only(path)) as backup:
            _check(backup, str(path))
            return _revision(backup, str(path))
    except sqlite3.DatabaseError as exc:
        raise BackupError(f"{path} cannot be read as an SQLite database: {exc}") from exc


def users_in(target: Path) -> int:
    if not target.is_file():
        return 0
    with closing(sqlite3.connect(target, timeout=BUSY_TIMEOUT_S)) as database:
        tables = database.execute("SELECT 1 FROM sqlite_master WHERE name='users'").fetchall()
        if not tables:
            return 0
        (count,) = database.execute("SELECT count(*) FROM users").fetchone()
        return int(count)


def load(*, backup: Path, target: Path, migrate: bool) -> None:
    """Put the backup into `target`. It is staged (and migrated) in a file of its own first,
    then copied into `target` with the backup API, which writes it in one transaction: the
    server's connections see the old database or the new one, never a mix."""
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = target.with_name(f".{target.name}.restoring-{secrets.token_hex(4)}")
    try:
        with closing(_read_only(backup)) as source, closing(sqlite3.connect(staging)) as staged:
            source.backup(staged)
        if migrate:
            migrations.upgrade(f"sqlite:///{staging.resolve()}")
        with (
            closing(sqlite3.connect(staging)) as staged,
            closing(sqlite3.connect(target, timeout=BUSY_TIMEOUT_S)) as database,
        ):
            staged.execute("PRAGMA journal_mode=DELETE")  # folds the migration's WAL in
            _check(staged, str(backup))
            staged.backup(database)
    finally:
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(f"{staging}{suffix}").unlink(missing_ok=True)
