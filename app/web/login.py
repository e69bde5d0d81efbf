"""Sending a visitor who is not signed in to log in, and back to the page they asked for.
The address is built here only: the page's path and query, encoded into `next`."""

from __future__ import annotations

from urllib.parse import quote

from fastapi import FastAPI, Request
from fastapi.responses import Response

from app.web.redirects import see_other


class LoginRequired(Exception):
    """A page that needs a signed-in user was asked for without one: the handler (`install`)
    sends the browser to log in, and back to `next_path` after."""

    def __init__(self, next_path: str) -> None:
        super().__init__(next_path)
        self.next_path = next_path


def login_url(next_path: str) -> str:
    """The log-in page, sending the user on to `next_path` (its query kept, encoded)."""
    return f"/login?next={quote(next_path, safe='/')}"


def here(request: Request) -> str:
    """This page's path with its query: where log-in sends the visitor back to."""
    path = request.url.path
    return f"{path}?{request.url.query}" if request.url.query else path


async def _login_first(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, LoginRequired)
    return see_other(login_url(exc.next_path))


def install(app: FastAPI) -> None:
    """Answer LoginRequired, wherever a page raises it, with the redirect to log in."""
    app.add_exception_handler(LoginRequired, _login_first)
