"""Database ids as the HTTP edge accepts them.

Ids are 32-bit integers in the database. A larger number in a URL cannot name a row, and
passed on it would make the database driver fail (a 500 and a traceback): it is refused
at the edge with a 422 naming the parameter, like any other bad input. Every integer id
in a path or a query uses these types."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Path, Query

MAX_ID = 2**31 - 1


def id_query(description: str) -> Any:
    """An id in a query, saying what it is for."""
    return Query(ge=1, le=MAX_ID, description=f"{description} (1 to 2147483647)")


DbId = Annotated[int, Path(ge=1, le=MAX_ID, description="An id (1 to 2147483647).")]
# Ids in a query are optional (a cursor such as `before`); `DbIdQuery | None` would lose the
# bounds (FastAPI reads `Annotated` only at the top of an annotation), hence `| None` inside.
DbIdQuery = Annotated[int | None, id_query("An id")]
