"""HTTP errors in the API's one shape: {"detail": "<human sentence>"}."""

from __future__ import annotations

from fastapi import FastAPI, HTTPException, status
from fastapi.routing import iter_route_contexts
from pydantic import BaseModel
from starlette.routing import compile_path


class ErrorOut(BaseModel):
    """The body of every error answer (but a 422 from validation: a list of field errors)."""

    detail: str


def not_found(what: str) -> HTTPException:
    return HTTPException(status.HTTP_404_NOT_FOUND, f"{what} not found.")


def conflict(message: str) -> HTTPException:
    return HTTPException(status.HTTP_409_CONFLICT, message)


def too_many(message: str, retry_after_s: int) -> HTTPException:
    return HTTPException(
        status.HTTP_429_TOO_MANY_REQUESTS, message, headers={"Retry-After": str(retry_after_s)}
    )


def too_large(message: str) -> HTTPException:
    return HTTPException(status.HTTP_413_CONTENT_TOO_LARGE, message)


# FastAPI answers a body it cannot decode at all (not UTF-8, say) with this 400; every other
# malformed body is a 422 naming the body, so this one is made one too.
UNREADABLE_BODY = "There was an error parsing the body"


def unreadable_body() -> list[dict[str, object]]:
    """The 422 detail for a body that is not JSON text (see UNREADABLE_BODY)."""
    return [
        {
            "type": "json_invalid",
            "loc": ["body"],
            "msg": "The body is not JSON text in UTF-8.",
            "input": None,
        }
    ]


def allowed_methods(app: FastAPI, path: str) -> str:
    """Every method some route serves at `path`, for the Allow header of a 405. Starlette
    names only those of the first route whose path matched, so a path served by several
    routes (GET and POST declared apart) would deny methods it has."""
    methods: set[str] = set()
    for route in iter_route_contexts(app.routes):
        if route.path and route.methods and compile_path(route.path)[0].fullmatch(path):
            methods |= set(route.methods)
    return ", ".join(sorted(methods))
