"""A live app (its own lifespan: migrations, content, the embedded grader) per backend,
shared by a module: the warm grader takes seconds to start, a test should not pay that."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from app.main import create_app
from tests.conftest import test_settings
from tests.processes import psql


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
async def live_app(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    tmp: Path = tmp_path_factory.mktemp("live")
    name = None
    if request.param == "sqlite":
        url = f"sqlite:///{tmp / 'live.db'}"
    else:
        name = f"tc_live_{uuid.uuid4().hex[:10]}"
        psql(f'CREATE DATABASE "{name}"')
        url = f"postgresql://postgres@127.0.0.1:5432/{name}"
    settings = test_settings(tmp, database_url=url, submissions_per_minute=30, grader_workers=2)
    app = create_app(settings)
    try:
        async with app.router.lifespan_context(app):
            yield app
    finally:
        if name:
            psql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
async def live(live_app) -> AsyncIterator[httpx.AsyncClient]:  # type: ignore[no-untyped-def]
    transport = httpx.ASGITransport(app=live_app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        yield client
