"""The API as published: `/openapi.json` with every error an endpoint can answer, and the
interactive `/docs` page served from the app's own files (no CDN: it works on a school
network without internet). The reference in words is docs/api.md.

Most error answers follow from what a route depends on, so they are declared here, once:
a route that needs a caller answers 401, a role check 403, a cookie-borne unsafe request
without its CSRF token 403, a path id 404, a body 413 (BodySizeLimit) and 422. What only a
route's own logic can answer (409, 429, ...) it declares itself with `responses=`; either
way the answer's schema is ErrorOut.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from html import escape
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.dependencies.models import Dependant
from fastapi.responses import HTMLResponse
from fastapi.routing import APIRoute, RouteContext, iter_route_contexts

from app.auth.dependencies import current_teacher, current_user
from app.classes.access import current_student
from app.errors import ErrorOut
from app.web.csrf import SAFE_METHODS, require_csrf

SWAGGER_UI = "/static/dist/swagger"  # copied there by frontend/build.mjs (npm swagger-ui-dist)
SWAGGER_INIT = "/static/swagger-init.js"  # a file, not an inline script: the page's CSP
DOCS_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Tensorcamp API</title>
<link rel="stylesheet" href="{swagger}/swagger-ui.css">
<link rel="icon" href="{swagger}/favicon-32x32.png">
<script src="{swagger}/swagger-ui-bundle.js" defer></script>
<script src="{init}" data-openapi-url="{openapi}" defer></script>
</head>
<body>
<div id="swagger-ui"><p>The API's description: <a href="{openapi}">{openapi}</a></p></div>
</body>
</html>
"""
ERROR_SCHEMA = {"$ref": f"#/components/schemas/{ErrorOut.__name__}"}
DESCRIPTIONS = {
    400: "The request cannot be understood",
    401: "Not logged in: no valid session cookie or bearer token",
    403: "Not allowed: the wrong role, or a browser's unsafe request without its CSRF token",
    404: "Not found, or not the caller's to see",
    409: "In conflict with what exists",
    413: "The request body, or the code in it, is too large",
    429: "Too many requests; `Retry-After` says when to try again",
}
# What each dependency can answer, whichever route uses it.
DEPENDENCY_ERRORS: dict[Callable[..., Any], set[int]] = {
    current_user: {401},
    current_teacher: {403},
    current_student: {403},
}

router = APIRouter(include_in_schema=False)


@router.get("/docs")
async def swagger_ui(request: Request) -> HTMLResponse:
    root = escape(request.scope.get("root_path", ""))
    page = DOCS_PAGE.format(
        openapi=f"{root}/openapi.json", swagger=f"{root}{SWAGGER_UI}", init=f"{root}{SWAGGER_INIT}"
    )
    return HTMLResponse(page)


def install(app: FastAPI) -> None:
    """Serve /docs; declare the error answers in the OpenAPI document when it is made."""
    app.include_router(router)
    make_document = app.openapi

    def document() -> dict[str, Any]:
        if app.openapi_schema is None:
            declare_errors(app, make_document())
        return make_document()

    app.openapi = document  # type: ignore[method-assign]


def api_routes(app: FastAPI) -> Iterator[RouteContext]:
    """The app's API routes as served: prefixes and the dependencies of include_router in."""
    for route in iter_route_contexts(app.routes):
        if isinstance(route.original_route, APIRoute) and route.include_in_schema:
            yield route


def error_codes(route: RouteContext) -> set[int]:
    """The errors a route can answer because of what it depends on and takes."""
    calls = {dependant.call for dependant in _dependants(route.dependant)}
    codes: set[int] = set()
    for call, answers in DEPENDENCY_ERRORS.items():
        if call in calls:
            codes |= answers
    if require_csrf in calls and set(route.methods or ()) - SAFE_METHODS:
        codes.add(403)
    if route.dependant.path_params:
        codes.add(404)
    if route.body_field is not None:
        codes.add(413)
    return codes


def declare_errors(app: FastAPI, document: dict[str, Any]) -> None:
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    schemas.setdefault(ErrorOut.__name__, ErrorOut.model_json_schema())
    for route in api_routes(app):
        derived = error_codes(route)
        for method in route.methods or ():
            operation = document["paths"][route.path_format].get(method.lower())
            if operation is None:
                continue
            responses = operation["responses"]
            declared = {int(code) for code in responses if code.isdigit()}
            for code in sorted((derived | declared) - {422}):
                if not 400 <= code < 500:
                    continue
                answer = responses.setdefault(str(code), {"description": DESCRIPTIONS[code]})
                answer.setdefault("content", {"application/json": {"schema": ERROR_SCHEMA}})


def _dependants(dependant: Dependant) -> Iterator[Dependant]:
    for sub in dependant.dependencies:
        yield sub
        yield from _dependants(sub)
