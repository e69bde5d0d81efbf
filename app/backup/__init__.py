"""`python -m app backup` and `python -m app restore`: the whole database in one file, made
online and consistent while the server runs, and put back whole or not at all.

SQLite: the file is an SQLite database made with SQLite's online backup API.
PostgreSQL: the file is a `pg_dump --format=custom` archive.
Either way the database must be Tensorcamp's (an `alembic_version` and a `users` table), and a
backup older than the code is brought up to date with the migrations as it is restored."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy.engine import make_url

from app.backup import postgres, sqlite
from app.backup.errors import BackupError
from app.backup.revisions import check_revision
from app.config import Settings

__all__ = ["BackupError", "Restored", "Written", "backup", "restore", "safe_url"]

SQLITE_MAGIC = b"SQLite format 3\x00"
PG_DUMP_MAGIC = b"PGDMP"  # what every pg_dump custom-format archive starts with


@dataclass(frozen=True)
class Written:
    path: Path
    source: str  # the database's URL, password hidden
    revision: str  # the newest migration the database had
    notes: list[str] = field(default_factory=list)  # what the operator must keep besides


@dataclass(frozen=True)
class Restored:
    target: str  # the database's URL, password hidden
    revision: str  # the backup's migration
    migrated: bool  # brought up to the code's newest migration after loading


def safe_url(url: str) -> str:
    """The URL to show: password hidden, the driver left out (`postgresql://u:***@h/db`)."""
    parsed = make_url(url)
    return parsed.set(drivername=parsed.get_backend_name()).render_as_string(hide_password=True)


def _is_sqlite(url: str) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def default_path(settings: Settings, *, now: datetime | None = None) -> Path:
    """DATA_DIR/backups/tensorcamp-<UTC time>.sqlite3 (or .dump for PostgreSQL)."""
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
    suffix = ".sqlite3" if _is_sqlite(settings.effective_database_url) else ".dump"
    return settings.data_dir / "backups" / f"tensorcamp-{stamp}{suffix}"


def backup(*, settings: Settings, output: Path | None = None) -> Written:
    """Write the database to `output` (a file that must not exist yet, or a folder to put the
    default name in; default: `default_path`). Blocking."""
    url = settings.effective_database_url
    if output is not None and not output.is_dir():
        path = output
        if path.exists():
            raise BackupError(f"{path} exists already: give another --output (backups are kept)")
    else:
        path = _unused(default_path(settings), folder=output)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    # Written under a temporary name, readable by its owner only (it holds password hashes),
    # and renamed once complete: a file under the final name is always a whole backup.
    partial = path.with_name(f".{path.name}.partial")
    partial.unlink(missing_ok=True)  # left by a backup that was killed
    os.close(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    try:
        if _is_sqlite(url):
            revision = sqlite.dump(source=sqlite.database_path(url), output=partial)
        else:
            revision = postgres.dump(url=url, output=partial)
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
    return Written(
        path=path, source=safe_url(url), revision=revision, notes=_kept_elsewhere(settings)
    )


def _unused(path: Path, *, folder: Path | None) -> Path:
    """The default name in `folder` (or its own), with -2, -3, ... if taken this second."""
    path = (folder or path.parent) / path.name
    candidate, number = path, 1
    while candidate.exists():
        number += 1
        candidate = path.with_name(f"{path.stem}-{number}{path.suffix}")
    return candidate


def _kept_elsewhere(settings: Settings) -> list[str]:
    key = settings.data_dir.resolve() / "secret_key"
    if settings.secret_key or not key.exists():
        return []
    return [
        f"not in the backup: {key}, the key that signs log-in cookies (SECRET_KEY is unset). "
        "Keep a copy of it with your backups; without it everyone has to log in again."
    ]


def restore(*, settings: Settings, path: Path, force: bool = False) -> Restored:
    """Replace the database by the backup in `path`, in one transaction, then migrate it to the
    code's newest migration. Refuses a database that holds users unless `force`. Blocking."""
    url = settings.effective_database_url
    if not path.is_file():
        raise BackupError(f"{path}: no such file")
    with path.open("rb") as handle:
        start = handle.read(len(SQLITE_MAGIC))
    wanted = "SQLite" if _is_sqlite(url) else "PostgreSQL"
    found = (
        "SQLite"
        if start.startswith(SQLITE_MAGIC)
        else "PostgreSQL"
        if start.startswith(PG_DUMP_MAGIC)
        else None
    )
    if found is None:
        raise BackupError(
            f"{path} is not a Tensorcamp backup: neither an SQLite database nor a pg_dump "
            "custom-format archive"
        )
    if found != wanted:
        raise BackupError(
            f"{path} is a backup of a {found} database, and DATABASE_URL ({safe_url(url)}) is "
            f"{wanted}: restore it into a {found} database"
        )
    backend = sqlite if found == "SQLite" else postgres
    revision = backend.revision_of_backup(path)
    migrate = check_revision(revision, path=path)
    target = sqlite.database_path(url) if found == "SQLite" else url
    users = sqlite.users_in(target) if isinstance(target, Path) else postgres.users_in(target)
    if users and not force:
        raise BackupError(
            f"{safe_url(url)} holds {users} user(s): nothing was changed. Add --force to "
            "replace everything in it by the backup"
        )
    if isinstance(target, Path):
        sqlite.load(backup=path, target=target, migrate=migrate)
    else:
        postgres.load(backup=path, url=target, migrate=migrate)
    return Restored(target=safe_url(url), revision=revision, migrated=migrate)
