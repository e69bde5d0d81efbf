"""Clients that call from an address of their choosing (httpx's in-process transport puts
it in the ASGI scope, as a proxy-aware server would; no packet leaves the process), and
an app on a database file of its own, for what the command line changes."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from app import migrations
from app.config import Settings, async_database_url
from app.db import Database
from app.main import create_app
from tests.conftest import test_settings as settings_for
from tests.helpers import refuse_server_errors

ClientAt = Callable[[str], AbstractAsyncContextManager[httpx.AsyncClient]]


@asynccontextmanager
async def client_for(app: FastAPI, address: str = "127.0.0.1") -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app, client=(address, 40000))
    async with httpx.AsyncClient(
        transport=transport,
        base_url="http://testserver",
        event_hooks={"response": [refuse_server_errors]},
    ) as client:
        yield client


@pytest.fixture
def client_at(app: FastAPI) -> ClientAt:
    """`async with client_at("203.0.113.5") as c:` a browser or script at that address."""
    return lambda address: client_for(app, address)


@dataclass
class FileApp:
    """An app on an SQLite file that `python -m app` (DATABASE_URL) changes too."""

    app: FastAPI
    database: Database
    settings: Settings


@pytest.fixture
async def file_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FileApp]:
    url = f"sqlite:///{tmp_path / 'accounts.db'}"
    monkeypatch.setenv("DATABASE_URL", url)
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("APP_USER_PASSWORD", raising=False)
    monkeypatch.delenv("ENVIRONMENT", raising=False)
    monkeypatch.delenv("SECRET_KEY", raising=False)
    await asyncio.to_thread(migrations.upgrade, async_database_url(url))
    settings = settings_for(tmp_path, database_url=url)
    database = Database.from_url(settings.effective_database_url)
    try:
        yield FileApp(create_app(settings, database=database), database, settings)
    finally:
        await database.dispose()
