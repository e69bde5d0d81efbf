"""Engine, sessions and the per-request unit of work."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Annotated, Any, cast

from fastapi import Depends, Request
from sqlalchemy import CursorResult, Executable, Table, event
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import (
    AsyncConnection,
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

from app import sqlite_driver


def make_engine(url: str, *, immediate: bool = False, **kwargs: Any) -> AsyncEngine:
    if url.startswith("sqlite"):
        if immediate:
            # One writer connection: writers queue for it here, in order, instead of
            # spinning in SQLite's busy handler (which sleeps up to 100 ms a try).
            kwargs |= {"pool_size": 1, "max_overflow": 0, "pool_timeout": 120}
        engine = create_async_engine(
            url, connect_args={"timeout": 30}, module=sqlite_driver.dbapi(), **kwargs
        )
        _sqlite_pragmas(engine, "BEGIN IMMEDIATE" if immediate else "BEGIN")
        return engine
    return create_async_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20, **kwargs)


def _sqlite_pragmas(engine: AsyncEngine, begin: str) -> None:
    # pysqlite opens transactions lazily and breaks SAVEPOINTs; take over BEGIN ourselves,
    # and use WAL so the grading pool can write while pages read.
    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.execute("PRAGMA synchronous=NORMAL")  # WAL: durable across process crashes
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(conn: Any) -> None:
        conn.exec_driver_sql(begin)


@dataclass
class Database:
    """`sessionmaker` for reading; `writer` for units of work that write. They differ on
    SQLite only: a transaction that reads first and writes later fails there if another
    writer committed in between, so writers take the write lock up front (BEGIN IMMEDIATE)."""

    engine: AsyncEngine
    sessionmaker: async_sessionmaker[AsyncSession]
    writer: async_sessionmaker[AsyncSession]

    @classmethod
    def from_url(cls, url: str) -> Database:
        engine = make_engine(url)
        reader = async_sessionmaker(engine, expire_on_commit=False)
        if not url.startswith("sqlite"):
            return cls(engine, reader, reader)
        writer = async_sessionmaker(make_engine(url, immediate=True), expire_on_commit=False)
        return cls(engine, reader, writer)

    @classmethod
    def bound_to(cls, connection: AsyncConnection) -> Database:
        """Sessions that share one outer transaction (tests roll it back at the end)."""
        sessionmaker = async_sessionmaker(
            bind=connection, expire_on_commit=False, join_transaction_mode="create_savepoint"
        )
        return cls(connection.engine, sessionmaker, sessionmaker)

    async def dispose(self) -> None:
        await self.engine.dispose()
        writer_engine = self.writer.kw.get("bind")
        if writer_engine is not None and writer_engine is not self.engine:
            await writer_engine.dispose()


def get_database(request: Request) -> Database:
    database: Database = request.app.state.database
    return database


async def get_session(
    request: Request, database: Annotated[Database, Depends(get_database)]
) -> AsyncIterator[AsyncSession]:
    """One unit of work per request: committed if the endpoint returns, else rolled back."""
    reads_only = request.method in ("GET", "HEAD", "OPTIONS")
    async with (database.sessionmaker if reads_only else database.writer)() as session:
        try:
            yield session
        except BaseException:
            await session.rollback()
            raise
        else:
            await session.commit()


SessionDep = Annotated[AsyncSession, Depends(get_session, scope="function")]


def insert_for(session: AsyncSession) -> Any:
    """The dialect's `insert`, which has `on_conflict_do_nothing` and `on_conflict_do_update`
    (the generic one has neither): PostgreSQL's, or SQLite's."""
    dialect = session.get_bind().dialect.name
    return postgresql_insert if dialect == "postgresql" else sqlite_insert


async def execute_core(
    session: AsyncSession, statement: Executable, parameters: dict[str, Any] | None = None
) -> CursorResult[*tuple[Any, ...]]:
    """Run `statement` in the session's transaction on its connection, past the ORM's
    per-statement work for UPDATE and INSERT (bulk bookkeeping, identity-map
    synchronisation): several times the cost of the statement itself on the path of every
    grading. For statements whose rows the caller does not go on to read as loaded objects,
    or whose new values it sets on them itself."""
    connection = await session.connection()
    return await connection.execute(statement, parameters)


def table_of(model: Any) -> Table:
    """A mapped class's table, for statements that skip the ORM's bookkeeping (with
    execute_core, or loaded as objects with `select(Model).from_statement(...)`)."""
    return cast(Table, model.__table__)
