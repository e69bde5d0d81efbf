"""Database ids as the HTTP edge accepts them.

Ids are 32-bit integers in the database. A larger number in a URL cannot name a row, and
passed on it would make the database driver fail (a 500 and a traceback): it is refused
at the edge with a 422 naming the parameter, like any other bad input. Every integer id
in a path or a query uses these types."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Path, Query, Request
from fastapi.dependencies.utils import request_params_to_args
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute

MAX_ID = 2**31 - 1


def id_query(description: str) -> Any:
    """An id in a query, saying what it is for."""
    return Query(ge=1, le=MAX_ID, description=f"{description} (1 to 2147483647)")


DbId = Annotated[int, Path(ge=1, le=MAX_ID, description="An id (1 to 2147483647).")]
# Ids in a query are optional (a cursor such as `before`); `DbIdQuery | None` would lose the
# bounds (FastAPI reads `Annotated` only at the top of an annotation), hence `| None` inside.
DbIdQuery = Annotated[int | None, id_query("An id")]


def check_path_and_query(request: Request) -> None:
    """Refuse the request's path and query as its route would, with a 422 naming each bad
    parameter. FastAPI calls the dependencies an endpoint declares before it checks the
    endpoint's own parameters, so a dependency that looks up one id of the path (a class
    page's TeacherClass) calls this first: another id, or a page number, out of range is
    then a 422, as on every other route, rather than the lookup's 404 or 403."""
    route = request.scope.get("route")
    if isinstance(route, APIRoute):
        dependant = route.dependant
        _, errors = request_params_to_args(dependant.path_params, request.path_params)
        _, query_errors = request_params_to_args(dependant.query_params, request.query_params)
        if errors or query_errors:
            raise RequestValidationError(errors + query_errors)
