"""PostgreSQL: backups with pg_dump (custom format: compressed, one snapshot, so consistent
while the server writes) and restores with pg_restore and psql in one transaction. The
password goes to the tools in PGPASSWORD, never on a command line others can read."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from sqlalchemy.engine import make_url

from app import migrations
from app.backup.errors import BackupError

# Run first, in the restore's transaction (shared with the compose backup service).
EMPTY_SCHEMA = Path(__file__).with_name("empty_schema.sql").read_bytes()


def _connection(url: str) -> tuple[str, dict[str, str]]:
    """A libpq URL without the password, and the environment that carries it."""
    parsed = make_url(url)
    query = dict(parsed.query)
    ssl = query.pop("ssl", None)  # asyncpg's spelling; libpq says sslmode
    if isinstance(ssl, str):
        query.setdefault("sslmode", "require" if ssl.lower() == "true" else ssl)
    libpq = parsed.set(drivername="postgresql", password=None, query=query)
    environment = dict(os.environ)
    if parsed.password is not None:
        environment["PGPASSWORD"] = str(parsed.password)
    return libpq.render_as_string(hide_password=False), environment


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise BackupError(
            f"{name} is not installed: install PostgreSQL's client programs "
            "(Debian: postgresql-client), of the server's major version or newer"
        )
    return found


def _run(name: str, *arguments: str, url: str | None = None, given: bytes | None = None) -> bytes:
    command = [_tool(name), *arguments]
    environment = None
    if url is not None:
        conninfo, environment = _connection(url)
        command.append(f"--dbname={conninfo}")
    result = subprocess.run(command, input=given, capture_output=True, env=environment)
    if result.returncode != 0:
        error = result.stderr.decode(errors="replace").strip()
        raise BackupError(f"{name} failed: {error}")
    return result.stdout


def dump(*, url: str, output: Path) -> str:
    """A pg_dump archive of the database in `output`; the migration it is at."""
    _run("pg_dump", "--format=custom", f"--file={output}", url=url)
    return revision_of_backup(output)


def revision_of_backup(path: Path) -> str:
    contents = _run("pg_restore", "--list", str(path)).decode()
    if " TABLE public users " not in contents or " alembic_version " not in contents:
        raise BackupError(f"{path} is a pg_dump archive, but not of Tensorcamp's database")
    data = _run(
        "pg_restore", "--data-only", "--table=alembic_version", "--file=-", str(path)
    ).decode()
    lines = data.splitlines()
    for number, line in enumerate(lines[:-1]):
        if line.startswith("COPY ") and "alembic_version" in line and lines[number + 1] != "\\.":
            return lines[number + 1].strip()
    raise BackupError(f"{path} has no migration recorded: not a Tensorcamp database")


def users_in(url: str) -> int:
    query = "SELECT CASE WHEN to_regclass('public.users') IS NULL THEN 0 ELSE 1 END"
    if _psql(url, query) == "0":
        return 0
    return int(_psql(url, "SELECT count(*) FROM public.users"))


def _psql(url: str, query: str) -> str:
    return _run("psql", "--no-psqlrc", "-qAt", f"--command={query}", url=url).decode().strip()


def load(*, backup: Path, url: str, migrate: bool) -> None:
    """Empty the database and load the backup in one transaction (all of it or, on any
    error, nothing), then migrate it. Objects are made by whoever restores (no owners, no
    grants from the old server)."""
    script = _run("pg_restore", "--no-owner", "--no-privileges", "--file=-", str(backup))
    _run(
        "psql",
        "--no-psqlrc",
        "--quiet",
        "--single-transaction",
        "--set=ON_ERROR_STOP=1",
        "--file=-",
        url=url,
        given=EMPTY_SCHEMA + script,
    )
    if migrate:
        migrations.upgrade(url)
