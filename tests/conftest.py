"""Fixtures: every test gets a migrated database (SQLite and PostgreSQL both) with the
built-in content loaded, inside a transaction that is rolled back after the test."""

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

from app import migrations
from app.config import REPO_ROOT, Settings
from app.content import load_catalog, sync_catalog
from app.db import Database, make_engine
from app.main import create_app

POSTGRES_URL = os.environ.get("TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432")
BACKENDS = ["sqlite", "postgresql"]


def test_settings(tmp: Path, **overrides: object) -> Settings:
    values: dict[str, object] = {
        "environment": "test",
        "secret_key": "test-secret-key-that-is-long-enough-0123456789",
        "data_dir": tmp,
        "grader_workers": 1,
    }
    return Settings(**(values | overrides))  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def content_catalog():  # type: ignore[no-untyped-def]
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


@pytest.fixture(scope="session")
async def migrated_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, content_catalog
) -> AsyncIterator[str]:  # type: ignore[no-untyped-def]
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
async def engine(migrated_url: str):  # type: ignore[no-untyped-def]
    engine = make_engine(migrated_url)
    yield engine
    await engine.dispose()


@pytest.fixture
async def db(engine) -> AsyncIterator[Database]:  # type: ignore[no-untyped-def]
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
def anyio_backend() -> Iterator[str]:
    yield "asyncio"
