"""Which migration a backup was made at, against the migrations this code has."""

from __future__ import annotations

from pathlib import Path

from alembic.script import ScriptDirectory
from alembic.util import CommandError

from app import migrations
from app.backup.errors import BackupError


def check_revision(revision: str, *, path: Path) -> bool:
    """Whether the backup needs migrating after it is loaded; refuses one made by newer code
    (its schema has migrations this code does not know, so it cannot be trusted)."""
    scripts = ScriptDirectory.from_config(migrations.alembic_config("sqlite://"))
    try:
        known = scripts.get_revision(revision) is not None
    except CommandError:
        known = False
    if not known:
        raise BackupError(
            f"{path} was made by a newer version of Tensorcamp (migration {revision!r} is "
            "unknown to this one): upgrade the code first, then restore"
        )
    return revision != scripts.get_current_head()
