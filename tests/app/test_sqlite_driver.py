"""The one-trip SQLite cursor (app/sqlite_driver.py) answers as the DBAPI would: rows,
counts, inserted ids, many-row executes, errors, and a transaction rolled back."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from app import sqlite_driver
from app.db import make_engine


async def test_statements_answer_as_the_dbapi_would(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite+aiosqlite:///{tmp_path / 'one-trip.db'}")
    try:
        async with engine.connect() as connection:
            raw = await connection.get_raw_connection()
            assert raw.dbapi_connection is not None
            assert isinstance(raw.dbapi_connection.cursor(), sqlite_driver.OneTripCursor)

            await connection.execute(text("CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT UNIQUE)"))
            inserted = await connection.execute(text("INSERT INTO t (a) VALUES ('x')"))
            assert inserted.lastrowid == 1
            many = await connection.execute(
                text("INSERT INTO t (a) VALUES (:a)"), [{"a": "y"}, {"a": "z"}]
            )
            assert many.rowcount == 2
            rows = await connection.execute(text("SELECT id, a FROM t ORDER BY id"))
            assert list(rows.keys()) == ["id", "a"]
            assert rows.all() == [(1, "x"), (2, "y"), (3, "z")]
            some = await connection.execute(text("SELECT a FROM t ORDER BY id"))
            assert some.fetchmany() == [("x",)]  # arraysize rows: one, as the DBAPI's
            assert some.fetchmany(5) == [("y",), ("z",)]
            empty = await connection.execute(text("SELECT a FROM t WHERE id > 10"))
            assert list(empty.keys()) == ["a"] and empty.all() == []
            updated = await connection.execute(text("UPDATE t SET a = a || '!' WHERE id < 3"))
            assert updated.rowcount == 2
            returned = await connection.execute(
                text("UPDATE t SET a = 'w' WHERE id = 3 RETURNING id, a")
            )
            assert returned.all() == [(3, "w")]
            with pytest.raises(IntegrityError):
                await connection.execute(text("INSERT INTO t (a) VALUES ('w')"))
            await connection.rollback()

        async with engine.connect() as connection:
            tables = await connection.scalar(
                text("SELECT count(*) FROM sqlite_master WHERE name = 't'")
            )
            assert tables == 0  # created in the transaction rolled back
    finally:
        await engine.dispose()
