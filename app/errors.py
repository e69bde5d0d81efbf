"""HTTP errors in the API's one shape: {"detail": "<human sentence>"}."""

from __future__ import annotations

from fastapi import HTTPException, status
from pydantic import BaseModel


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
