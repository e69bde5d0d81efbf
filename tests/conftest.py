"""Fixtures: every test gets a migrated database (SQLite and PostgreSQL both, or those named
in TEST_BACKENDS) with the built-in content loaded, inside a transaction that is rolled back
after the test. Markers that follow from what a test uses are applied here (see
`pytest_collection_modifyitems`), and so is the grouping that keeps an expensive fixture on
one pytest-xdist worker."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import asyncpg
import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy.ext.asyncio import AsyncEngine

from app import migrations
from app.config import REPO_ROOT, Settings
from app.content import Catalog, load_catalog, sync_catalog
from app.db import Database, make_engine
from app.main import create_app
from tests.processes import PrivateRedis

POSTGRES_URL = os.environ.get("TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432")
ALL_BACKENDS = ("sqlite", "postgresql")


def _backends() -> list[str]:
    """The database backends tests run on: TEST_BACKENDS (comma-separated), else both."""
    names = [name.strip() for name in os.environ.get("TEST_BACKENDS", "").split(",")]
    chosen = [name for name in names if name] or list(ALL_BACKENDS)
    unknown = sorted(set(chosen) - set(ALL_BACKENDS))
    if unknown:
        raise pytest.UsageError(f"TEST_BACKENDS: unknown backend(s) {unknown}, not {ALL_BACKENDS}")
    return chosen


BACKENDS = _backends()

# Under pytest-xdist every worker is a process of its own with its own databases (named by
# pid, or in its own temporary folder) and its own free ports; anything that falls back on
# the Redis key namespace from the environment gets one per worker too.
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "main")
os.environ["GRADING_NAMESPACE"] = os.environ["GRADER_NAMESPACE"] = f"tc-test-{WORKER}"
# Limits the suite's own traffic would reach (every test signs up from one address; some
# queue a burst of submissions for one student), raised for every app and process the tests
# start. tests/app/test_limits.py tests them with settings of its own.
os.environ.setdefault("SIGNUPS_PER_ADDRESS", "1000000")
os.environ.setdefault("MAX_QUEUED_PER_USER", "1000000")

# Markers by the fixtures a test uses. A fixture named here starts the real sandboxed grader
# (directly or inside a live app) once per module, so its tests also run on one worker.
SANDBOX_MODULE_FIXTURES = {
    "grader",
    "gpu_grader",
    "plugin_grader",
    "live_app",
    "variants_app",
    "fair_app",
}
MARKERS_BY_FIXTURE: dict[str, tuple[str, ...]] = {
    **{name: ("sandbox",) for name in SANDBOX_MODULE_FIXTURES},
    # tests/app/submissions/conftest.py: PostgreSQL, Redis, web and workers.
    "stack": ("distributed", "postgres", "sandbox"),
}
BROWSER_TESTS = Path(__file__).parent / "browser"


def _params(item: pytest.Item) -> dict[str, object]:
    callspec = getattr(item, "callspec", None)
    return dict(callspec.params) if callspec else {}


def backends_of(item: pytest.Item) -> set[str]:
    """The database backends among a test's parameters: those of the root `migrated_url`,
    the live apps, the restart tests' databases (any fixture or argument named by one)."""
    return {value for value in _params(item).values() if value in ALL_BACKENDS}


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the xdist_group marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test by what it uses; leave out those on a backend not in TEST_BACKENDS."""
    kept, left_out = [], []
    for item in items:
        params = _params(item)
        backends = backends_of(item)
        if not backends <= set(BACKENDS):
            left_out.append(item)
            continue
        kept.append(item)
        fixtures: list[str] = getattr(item, "fixturenames", [])
        names = {marker for f in fixtures for marker in MARKERS_BY_FIXTURE.get(f, ())}
        if "postgresql" in backends:
            names.add("postgres")
        group = None
        if item.path.is_relative_to(BROWSER_TESTS):
            names |= {"browser", "sandbox"}
            # A module's tests share its Chromium (module scope); the modules spread over
            # the workers, each starting the server process (session scope) once.
            group = "browser-" + item.nodeid.split("::")[0]
        elif shared := sorted(SANDBOX_MODULE_FIXTURES.intersection(fixtures)):
            # One group per module and per parametrization of its grader-starting fixture
            # (a live app per backend: the SQLite and PostgreSQL halves may run side by side).
            module = item.nodeid.split("::")[0]
            group = "-".join([module, *(str(params[f]) for f in shared if f in params)])
        for name in sorted(names):
            item.add_marker(name)
        if group:
            item.add_marker(pytest.mark.xdist_group(group))
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = kept


def test_settings(tmp: Path, **overrides: object) -> Settings:
    values: dict[str, object] = {
        "environment": "test",
        "secret_key": "test-secret-key-that-is-long-enough-0123456789",
        "data_dir": tmp,
        "grader_workers": 1,
        "public_base_url": "http://testserver",  # where the test client sends its requests
    }
    return Settings(**(values | overrides))  # type: ignore[arg-type]


test_settings.__test__ = False  # type: ignore[attr-defined]  # a helper, not a test, wherever imported


@pytest.fixture(scope="session")
def content_catalog() -> Catalog:
    return load_catalog(REPO_ROOT / "exercises")


async def _create_postgres_database() -> tuple[str, str]:
    name = f"tc_test_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    connection = await asyncpg.connect(f"{POSTGRES_URL}/postgres")
    try:
        await connection.execute(f'CREATE DATABASE "{name}"')
    finally:
        await connection.close()
    return name, f"{POSTGRES_URL}/{name}"


async def _drop_postgres_database(name: str) -> None:
    connection = await asyncpg.connect(f"{POSTGRES_URL}/postgres")
    try:
        await connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await connection.close()


@pytest.fixture(params=ALL_BACKENDS)
async def empty_database_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """An empty database per backend, not migrated: for tests of a migration's own work."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'empty.db'}"
        return
    name, url = await _create_postgres_database()
    try:
        yield url
    finally:
        await _drop_postgres_database(name)


@pytest.fixture(scope="session")
async def migrated_url(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    content_catalog: Catalog,
) -> AsyncIterator[str]:
    """A fresh database per backend and test run, migrated and loaded with content."""
    backend: str = request.param
    pg_name = None
    if backend == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('sqlite') / 'test.db'}"
    else:
        pg_name, url = await _create_postgres_database()
    try:
        await asyncio.to_thread(migrations.upgrade, url)
        database = Database.from_url(Settings(database_url=url).effective_database_url)
        async with database.sessionmaker() as session, session.begin():
            await sync_catalog(session=session, catalog=content_catalog)
        await database.dispose()
        yield Settings(database_url=url).effective_database_url
    finally:
        if pg_name:
            await _drop_postgres_database(pg_name)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "migrated_url" in metafunc.fixturenames:
        metafunc.parametrize("migrated_url", BACKENDS, indirect=True, scope="session")


@pytest.fixture(scope="session")
async def engine(migrated_url: str) -> AsyncIterator[AsyncEngine]:
    engine = make_engine(migrated_url)
    yield engine
    await engine.dispose()


@pytest.fixture
async def db(engine: AsyncEngine) -> AsyncIterator[Database]:
    """A Database whose every session works inside one transaction, rolled back at the end."""
    async with engine.connect() as connection:
        transaction = await connection.begin()
        try:
            yield Database.bound_to(connection)
        finally:
            await transaction.rollback()


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return test_settings(tmp_path)


@pytest.fixture
def app(settings: Settings, db: Database) -> FastAPI:
    return create_app(settings, database=db)


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        yield client


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[PrivateRedis]:
    """A Redis of the test's own (tests/processes.py), killed after it."""
    server = PrivateRedis(tmp_path).start()
    yield server
    server.kill()


@pytest.fixture
def anyio_backend() -> Iterator[str]:
    yield "asyncio"
