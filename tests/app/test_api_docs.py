"""The API as published: docs/api.md and /openapi.json describe the same endpoints, every
error an endpoint can answer is declared with its schema, and /docs needs no internet."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute, RouteContext, iter_route_contexts

from app.auth.dependencies import current_teacher, current_user
from app.classes.access import current_student
from app.config import REPO_ROOT, Settings
from app.db import Database
from app.models import User
from app.models.states import Role
from tests.helpers import make_student

API_MD = REPO_ROOT / "docs" / "api.md"
HEADING = re.compile(r"^#{2,4} (GET|POST|PUT|PATCH|DELETE) (/\S*)\s*$", re.M)
Operation = tuple[str, str]

# What only an endpoint's own logic can answer, so no dependency tells: said here, in full.
RATE_LIMITED = {
    ("POST", "/api/auth/token"),
    ("POST", "/api/auth/register"),  # sign-ups per address
    ("POST", "/api/questions/{question_id}/answers"),
    ("POST", "/api/classes/join"),  # wrong join codes
    ("POST", "/api/exercises/{exercise_id}/submissions"),
    ("POST", "/api/exercises/{exercise_id}/runs"),
}
BAD_CREDENTIALS = {("POST", "/api/auth/token"), ("GET", "/metrics")}  # METRICS_TOKEN
CONFLICTS = {
    ("POST", "/api/auth/register"),
    ("POST", "/api/classes/join"),
    ("POST", "/api/questions/{question_id}/reveal"),  # not answered yet
    ("POST", "/api/regrades/{regrade_id}/apply"),  # not ready, or the exercise changed
    ("POST", "/api/regrades/{regrade_id}/discard"),  # applied or discarded already
}
NOT_FOUND_WITHOUT_PATH_ID = {("POST", "/api/classes/join")}
FORBIDDEN_BY_LOGIC = {
    ("POST", "/api/auth/token"),
    ("GET", "/api/exercises/{exercise_id}/solution"),
    ("GET", "/metrics"),  # not from this host, without METRICS_TOKEN
}
ROLE_CHECKS: set[Callable[..., Any]] = {current_teacher, current_student}


def documented() -> set[Operation]:
    return {(method, path) for method, path in HEADING.findall(API_MD.read_text())}


def published(document: dict[str, Any]) -> set[Operation]:
    return {
        (method.upper(), path)
        for path, operations in document["paths"].items()
        for method in operations
    }


async def openapi(client: httpx.AsyncClient) -> dict[str, Any]:
    response = await client.get("/openapi.json")
    assert response.status_code == 200
    document: dict[str, Any] = response.json()
    return document


def operations(document: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, by_method in document["paths"].items():
        for method, operation in by_method.items():
            yield method.upper(), path, operation


async def test_every_endpoint_is_documented_and_every_documented_one_exists(
    client: httpx.AsyncClient,
) -> None:
    document = await openapi(client)
    assert published(document) - documented() == set(), "add these to docs/api.md"
    assert documented() - published(document) == set(), "docs/api.md names endpoints not served"


def test_the_docs_point_to_nothing_outside_the_repository() -> None:
    for path in [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]:
        text = path.read_text()
        for pointer in ("API.md", "DESIGN.md", "../shared"):
            assert not re.search(rf"(?<![\w/]){re.escape(pointer)}", text), (path, pointer)


# --- error answers -----------------------------------------------------------------------------


async def test_every_error_answer_has_its_schema(client: httpx.AsyncClient) -> None:
    document = await openapi(client)
    schemas = document["components"]["schemas"]
    assert schemas["ErrorOut"]["properties"] == {"detail": {"title": "Detail", "type": "string"}}
    assert schemas["ErrorOut"]["required"] == ["detail"]
    for method, path, operation in operations(document):
        for code, answer in operation["responses"].items():
            if not code.startswith("4"):
                continue
            schema = answer["content"]["application/json"]["schema"]
            expected = "HTTPValidationError" if code == "422" else "ErrorOut"
            assert schema == {"$ref": f"#/components/schemas/{expected}"}, (method, path, code)


def _dependants(dependant: Dependant) -> Iterator[Dependant]:
    for sub in dependant.dependencies:
        yield sub
        yield from _dependants(sub)


def api_routes(app: FastAPI) -> Iterator[RouteContext]:
    for route in iter_route_contexts(app.routes):
        if isinstance(route.original_route, APIRoute) and route.include_in_schema:
            yield route


def expected_errors(route: RouteContext, method: str) -> set[int]:
    """What the route can answer, from what it uses and the table above."""
    calls = {dependant.call for dependant in _dependants(route.dependant)}
    operation = (method, route.path_format)
    codes = set()
    if current_user in calls or operation in BAD_CREDENTIALS:
        codes.add(401)
    if calls & ROLE_CHECKS or method not in ("GET", "HEAD") or operation in FORBIDDEN_BY_LOGIC:
        codes.add(403)  # a role, a CSRF token (unsafe methods), or the endpoint's own rule
    if route.dependant.path_params or operation in NOT_FOUND_WITHOUT_PATH_ID:
        codes.add(404)
    if operation in CONFLICTS:
        codes.add(409)
    if route.body_field is not None:
        codes |= {413, 422}
    if route.dependant.path_params or route.dependant.query_params:
        codes.add(422)
    if operation in RATE_LIMITED:
        codes.add(429)
    return codes


async def test_each_endpoint_declares_the_errors_it_can_answer(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    document = await openapi(client)
    checked = 0
    for route in api_routes(app):
        for method in route.methods or ():
            declared = {
                int(code)
                for code in document["paths"][route.path_format][method.lower()]["responses"]
                if code.startswith("4")
            }
            assert declared == expected_errors(route, method), (method, route.path_format)
            checked += 1
    assert checked == len(published(document))


def test_the_expectations_name_real_endpoints(app: FastAPI) -> None:
    served = {(m, r.path_format) for r in api_routes(app) for m in r.methods or ()}
    for table in (
        RATE_LIMITED,
        BAD_CREDENTIALS,
        CONFLICTS,
        NOT_FOUND_WITHOUT_PATH_ID,
        FORBIDDEN_BY_LOGIC,
    ):
        assert table <= served


# What callers really get: every answer to a bad request is one the endpoint declares.


def concrete(path: str, operation: dict[str, Any]) -> str:
    """The path with ids that exist nowhere."""
    for parameter in operation.get("parameters", []):
        if parameter["in"] == "path":
            missing = "2147483000" if parameter["schema"].get("type") == "integer" else "no-such"
            path = path.replace("{" + parameter["name"] + "}", missing)
    return path


async def teacher_headers(db: Database) -> dict[str, str]:
    headers, user_id = await make_student(db)
    async with db.sessionmaker() as session, session.begin():
        user = await session.get_one(User, user_id)
        user.role = Role.TEACHER
    return headers


@pytest.mark.parametrize("who", ["anonymous", "student", "teacher"])
async def test_what_a_caller_is_answered_is_declared(
    client: httpx.AsyncClient, db: Database, settings: Settings, who: str
) -> None:
    document = await openapi(client)
    for method, path, operation in sorted(operations(document)):
        if path == "/api/me/logout-all":
            continue  # it would end the caller's token for the endpoints after it
        headers: dict[str, str] = {}
        if who == "student":
            headers, _ = await make_student(db)
        elif who == "teacher":
            headers = await teacher_headers(db)
        declared = {int(code) for code in operation["responses"]}
        url = concrete(path, operation)
        body: dict[str, Any] | None = {} if "requestBody" in operation else None
        response = await client.request(method, url, json=body, headers=headers)
        assert response.status_code in declared, (who, method, path, response.text)
        if body is not None:
            oversized = b"{" + b" " * settings.max_body_bytes + b"}"
            response = await client.request(
                method,
                url,
                content=oversized,
                headers=headers | {"content-type": "application/json"},
            )
            assert response.status_code == 413, (who, method, path)
            assert 413 in declared, (who, method, path)


# --- the interactive docs ----------------------------------------------------------------------


async def test_the_docs_page_loads_everything_from_the_app(client: httpx.AsyncClient) -> None:
    response = await client.get("/docs")
    assert response.status_code == 200
    page = response.text
    assert re.findall(r"https?://[^\s\"'<>)]+", page) == []
    assets = re.findall(r"""(?:src|href)=["']([^"']+)["']""", page)
    assets += re.findall(r"""url:\s*["']([^"']+)["']""", page)
    assert any(asset.endswith("swagger-ui-bundle.js") for asset in assets)
    assert any(asset.endswith("swagger-ui.css") for asset in assets)
    assert "/openapi.json" in assets
    for asset in assets:
        assert asset.startswith("/"), asset
        fetched = await client.get(asset)
        assert fetched.status_code == 200, asset
        assert fetched.content, asset


async def test_redoc_is_not_served(client: httpx.AsyncClient) -> None:
    assert (await client.get("/redoc")).status_code == 404
