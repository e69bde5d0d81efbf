"""Ids at the edge: every integer parameter of every route, in the API and in the pages, is
refused with a 422 naming it when it is out of the database's range (before, an id past
2**63 answered 500 and logged a traceback). Walks the app's routes, so a route added later
is covered without being listed here."""

from __future__ import annotations

import re
import types
import typing
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute, RouteContext, iter_route_contexts

from app.auth.tokens import issue_token
from app.db import Database
from app.ids import MAX_ID
from app.models import User
from tests.helpers import bearer, unique_name

OUT_OF_RANGE = [2**63, 10**30, -1, 0, MAX_ID + 1]
JSON = {"Accept": "application/json"}


def _is_int(annotation: Any) -> bool:
    if annotation is int:
        return True
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return int in typing.get_args(annotation)
    return False


def _params(dependant: Dependant, where: str) -> list[Any]:
    """The `where` ("path" or "query") parameters of an endpoint and its dependencies."""
    fields = list(dependant.path_params if where == "path" else dependant.query_params)
    for sub in dependant.dependencies:
        fields += _params(sub, where)
    return fields


def int_params(route: RouteContext, where: str) -> list[str]:
    fields = _params(route.dependant, where)
    return sorted({field.name for field in fields if _is_int(field.field_info.annotation)})


def routes_with(app: FastAPI, where: str) -> list[tuple[str, str, str]]:
    """(method, path template, parameter) for every integer parameter found `where`."""
    found = []
    for route in iter_route_contexts(app.routes):  # as served: API routes and pages
        if not isinstance(route.original_route, APIRoute):
            continue
        assert route.path is not None
        for name in int_params(route, where):
            for method in sorted(set(route.methods or ()) - {"HEAD"}):
                found.append((method, route.path, name))
    return found


def fill(template: str, **values: object) -> str:
    """The path with each `{name}` (or `{name:converter}`) replaced, 1 if not given."""
    return re.sub(r"\{(\w+)(?::\w+)?\}", lambda match: str(values.get(match.group(1), 1)), template)


async def teacher_headers(db: Database) -> dict[str, str]:
    async with db.sessionmaker() as session, session.begin():
        user = User(username=unique_name("t"), password_hash="-", role="teacher")
        session.add(user)
        await session.flush()
        return bearer(await issue_token(session=session, user=user)) | JSON


def test_the_walk_finds_the_id_routes(app: FastAPI) -> None:
    """Guards the walk itself: were it to find nothing, the tests below would pass empty."""
    path_ids = {(method, path) for method, path, _ in routes_with(app, "path")}
    assert ("GET", "/api/submissions/{submission_id}") in path_ids
    assert ("GET", "/classes/{class_id}") in path_ids  # a page
    assert ("POST", "/account/tokens/{token_id}/revoke") in path_ids
    assert ("GET", "/api/exercises/{exercise_id}/submissions", "before") in routes_with(
        app, "query"
    )


@pytest.mark.parametrize("value", OUT_OF_RANGE)
async def test_an_id_out_of_range_in_any_path_is_a_422_naming_it(
    app: FastAPI, client: httpx.AsyncClient, db: Database, value: int
) -> None:
    headers = await teacher_headers(db)
    for method, template, name in routes_with(app, "path"):
        response = await client.request(method, fill(template, **{name: value}), headers=headers)
        where = f"{method} {template} with {name}={value}"
        assert response.status_code == 422, f"{where}: {response.status_code} {response.text}"
        locations = [error["loc"] for error in response.json()["detail"]]
        assert ["path", name] in locations, f"{where}: {locations}"


@pytest.mark.parametrize("value", OUT_OF_RANGE)
async def test_an_integer_out_of_range_in_any_query_is_a_422_naming_it(
    app: FastAPI, client: httpx.AsyncClient, db: Database, value: int
) -> None:
    headers = await teacher_headers(db)
    for method, template, name in routes_with(app, "query"):
        response = await client.request(
            method, fill(template), params={name: str(value)}, headers=headers
        )
        where = f"{method} {template} with ?{name}={value}"
        assert response.status_code == 422, f"{where}: {response.status_code} {response.text}"
        locations = [error["loc"] for error in response.json()["detail"]]
        assert ["query", name] in locations, f"{where}: {locations}"


async def test_the_largest_id_is_simply_not_found(client: httpx.AsyncClient, db: Database) -> None:
    headers = await teacher_headers(db)
    for path in (f"/api/submissions/{MAX_ID}", f"/api/classes/{MAX_ID}"):
        response = await client.get(path, headers=headers)
        assert response.status_code == 404, (path, response.text)


async def test_the_api_document_states_the_range(client: httpx.AsyncClient) -> None:
    document = (await client.get("/openapi.json")).json()
    checked = 0
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            for parameter in operation.get("parameters", []):
                schema = parameter["schema"]
                types_ = {schema.get("type")} | {s.get("type") for s in schema.get("anyOf", [])}
                is_id = parameter["name"].endswith("_id") or parameter["name"] == "before"
                if "integer" not in types_ or not is_id:
                    continue
                bounded = (
                    schema
                    if "maximum" in schema
                    else next(s for s in schema.get("anyOf", []) if s.get("type") == "integer")
                )
                where = f"{method.upper()} {path} {parameter['name']}"
                assert (bounded.get("minimum"), bounded.get("maximum")) == (1, MAX_ID), where
                checked += 1
    assert checked >= 10
