"""Apply Alembic migrations programmatically (the app does this at start-up)."""

from __future__ import annotations

from alembic import command
from alembic.config import Config

from app.config import REPO_ROOT


def alembic_config(database_url: str) -> Config:
    config = Config(str(REPO_ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(REPO_ROOT / "alembic"))
    config.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    return config


def upgrade(database_url: str) -> None:
    """Blocking (Alembic's env runs its own event loop): call it from a thread in async code."""
    command.upgrade(alembic_config(database_url), "head")
