"""SQLite for the async engine with one trip to aiosqlite's thread per statement.

SQLAlchemy's aiosqlite adapter opens a cursor, executes, fetches and closes it in four
separate calls, each a hand-over to aiosqlite's thread and back to the event loop (a
queue, a thread wake-up, a self-pipe write). Our statements are small: the hand-overs cost
more CPU than SQLite's work (about 100 a grading, a quarter of the web process's CPU).
Here the whole statement runs in one call on that thread and its rows come back at once,
which is what the adapter did anyway (it fetched every row after each execute).

Passed as the engine's DBAPI module (`create_async_engine(..., module=dbapi())`); the
dialect, the pool and the rest of SQLAlchemy's aiosqlite support are unchanged."""

from __future__ import annotations

import collections
import sqlite3
from collections.abc import Sequence
from typing import Any

import aiosqlite
from sqlalchemy.connectors.asyncio import AsyncAdapt_dbapi_connection
from sqlalchemy.dialects.sqlite.aiosqlite import (
    AsyncAdapt_aiosqlite_connection,
    AsyncAdapt_aiosqlite_cursor,
    AsyncAdapt_aiosqlite_dbapi,
)
from sqlalchemy.util import EMPTY_DICT
from sqlalchemy.util.concurrency import await_

# description, rows (None without a result set), rowcount, lastrowid
_Outcome = tuple[Any, list[Any] | None, int, int | None]


def _execute(
    connection: sqlite3.Connection, operation: str, parameters: Any, many: bool
) -> _Outcome:
    """On aiosqlite's thread: the statement, its rows and its counts, in one go."""
    cursor = connection.cursor()
    try:
        if many:
            cursor.executemany(operation, parameters)
        elif parameters is None:
            cursor.execute(operation)
        else:
            cursor.execute(operation, parameters)
        description = cursor.description
        rows = cursor.fetchall() if description else None
        return description, rows, cursor.rowcount, cursor.lastrowid
    finally:
        cursor.close()


class OneTripCursor(AsyncAdapt_aiosqlite_cursor):
    """A buffered cursor whose execute is one call on aiosqlite's thread. It holds no
    aiosqlite cursor: description, rowcount and lastrowid are those of its last
    statement, kept when it ran."""

    __slots__ = ("_arraysize", "_description", "_lastrowid", "_rowcount")

    def __init__(self, adapt_connection: AsyncAdapt_dbapi_connection) -> None:
        self._adapt_connection = adapt_connection
        self._connection = adapt_connection._connection
        self._soft_closed_memoized = EMPTY_DICT
        self._rows = collections.deque()
        self._description: Any = None
        self._rowcount = -1
        self._lastrowid: int | None = None
        self._arraysize = 1  # the DBAPI's default: fetchmany() without a size takes one row

    @property
    def description(self) -> Any:
        return self._description

    @property
    def rowcount(self) -> int:
        return self._rowcount

    @property
    def lastrowid(self) -> Any:
        return self._lastrowid

    @property
    def arraysize(self) -> int:
        return self._arraysize

    @arraysize.setter
    def arraysize(self, value: int) -> None:
        self._arraysize = value

    async def _async_soft_close(self) -> None:
        return None  # nothing is open on the other thread

    def close(self) -> None:
        self._rows.clear()

    def execute(self, operation: Any, parameters: Any = None) -> None:
        try:
            await_(self._run(operation, parameters, many=False))
        except Exception as error:
            self._adapt_connection._handle_exception(error)

    def executemany(self, operation: Any, seq_of_parameters: Sequence[Any]) -> None:
        try:
            await_(self._run(operation, seq_of_parameters, many=True))
        except Exception as error:
            self._adapt_connection._handle_exception(error)

    async def _run(self, operation: Any, parameters: Any, *, many: bool) -> None:
        connection: aiosqlite.Connection = self._connection  # type: ignore[assignment]
        async with self._adapt_connection._execute_mutex:
            outcome: _Outcome = await connection._execute(
                _execute, connection._conn, operation, parameters, many
            )
        self._description, rows, self._rowcount, self._lastrowid = outcome
        self._rows = collections.deque(rows or ())


class _Connection(AsyncAdapt_aiosqlite_connection):
    __slots__ = ()
    _cursor_cls = OneTripCursor


class _DBAPI(AsyncAdapt_aiosqlite_dbapi):
    def connect(self, *arg: Any, **kw: Any) -> AsyncAdapt_aiosqlite_connection:
        adapted = super().connect(*arg, **kw)
        return _Connection(self, adapted._connection)


def dbapi() -> AsyncAdapt_aiosqlite_dbapi:
    """The DBAPI module to give `create_async_engine(module=...)` for sqlite+aiosqlite."""
    return _DBAPI(aiosqlite, sqlite3)
