"""A live app (its own lifespan: migrations, content, the embedded grader) per backend,
shared by a module: the warm grader takes seconds to start, a test should not pay that."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from app.main import create_app
from tests.conftest import test_settings
from tests.processes import PrivateRedis, psql


@contextlib.asynccontextmanager
async def running_app(backend: str, tmp: Path, **overrides: object) -> AsyncIterator[FastAPI]:
    """The app with its lifespan running, on a database of its own."""
    name = None
    if backend == "sqlite":
        url = f"sqlite:///{tmp / 'live.db'}"
    else:
        name = f"tc_live_{uuid.uuid4().hex[:10]}"
        psql(f'CREATE DATABASE "{name}"')
        url = f"postgresql://postgres@127.0.0.1:5432/{name}"
    settings = test_settings(tmp, **({"database_url": url} | overrides))
    app = create_app(settings)
    try:
        async with app.router.lifespan_context(app):
            yield app
    finally:
        if name:
            psql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
async def live_app(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[FastAPI]:
    tmp: Path = tmp_path_factory.mktemp("live")
    async with running_app(request.param, tmp, submissions_per_minute=30, grader_workers=2) as app:
        yield app


@pytest.fixture
async def live(live_app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=live_app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        yield client


# --- the distributed stack (helpers: tests/app/submissions/stack.py) ---------------------


@pytest.fixture
def database_url() -> Iterator[str]:
    name = f"tc_fault_{uuid.uuid4().hex[:10]}"
    psql(f'CREATE DATABASE "{name}"')
    yield f"postgresql://postgres@127.0.0.1:5432/{name}"
    psql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def stack(tmp_path: Path, database_url: str, redis_server: PrivateRedis) -> Iterator[dict]:
    namespace = f"tc-test-{uuid.uuid4().hex[:8]}"
    env = {
        "ENVIRONMENT": "test",
        "SECRET_KEY": "fault-test-secret-key-that-is-long-enough",
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_server.url,
        "GRADING_NAMESPACE": namespace,
        "QUEUED_LEASE_S": "6",
        "RUNNING_LEASE_S": "4",
        "REAP_EVERY_S": "0.5",
        "CLAIM_IDLE_MS": "2000",
        "SUBMISSIONS_PER_MINUTE": "1000",
        "DATA_DIR": str(tmp_path),
    }
    services: list = []
    yield {"env": env, "namespace": namespace, "redis": redis_server, "services": services}
    for service in services:
        service.kill()
