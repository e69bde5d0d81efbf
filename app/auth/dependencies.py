"""Who is calling: a bearer token or the session cookie; CSRF for cookie-borne requests."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated

from fastapi import Depends, HTTPException, Request, status
from sqlalchemy.ext.asyncio import AsyncSession

from app.auth import service
from app.auth.security import tokens_match
from app.db import get_database
from app.models import User

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf_token"
SESSION_COOKIE = "session"


def bearer_token(request: Request) -> str | None:
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def csrf_token(request: Request) -> str:
    """The session's CSRF token, made on first use (so anonymous forms carry one too)."""
    token = request.session.get("csrf")
    if not token:
        token = secrets.token_urlsafe(24)
        request.session["csrf"] = token
    return str(token)


async def require_csrf(request: Request) -> None:
    if request.method in SAFE_METHODS or bearer_token(request):
        return
    content_type = request.headers.get("content-type", "")
    is_form = content_type.startswith(("application/x-www-form-urlencoded", "multipart/form-data"))
    if SESSION_COOKIE not in request.cookies and not is_form:
        # No ambient credential to abuse: plain API clients (curl, scripts) need no token.
        # Forms always do, or a cross-site page could log a first-time visitor in as
        # someone else (log-in CSRF); our pages set the session cookie before any form.
        return
    given = request.headers.get(CSRF_HEADER)
    if given is None and is_form:
        form = await request.form()
        field = form.get(CSRF_FIELD)
        given = field if isinstance(field, str) else None
    if not tokens_match(given, request.session.get("csrf")):
        raise HTTPException(
            status.HTTP_403_FORBIDDEN,
            "The form has expired or the CSRF token is missing; reload the page and try again.",
        )


@dataclass(frozen=True)
class PageUser:
    """What templates show of the caller: plain values, not the ORM row, so that an error
    page rendered after the request's unit of work rolled back (which expires every row
    of the session) can still show who is logged in."""

    id: int
    username: str
    role: str
    created_at: datetime


async def optional_user(request: Request) -> User | None:
    # A short read session of its own: the request's unit of work (on SQLite, the single
    # writer for unsafe methods) is then held only for the endpoint's own work.
    async with get_database(request).sessionmaker() as reader:
        user = await _resolve_user(request, reader)
    request.state.user = (
        PageUser(user.id, user.username, user.role, user.created_at) if user else None
    )
    return user


async def _resolve_user(request: Request, session: AsyncSession) -> User | None:
    if token := bearer_token(request):
        user = await service.user_for_token(session=session, token=token)
        if user is None:
            raise HTTPException(
                status.HTTP_401_UNAUTHORIZED,
                "The token is not valid.",
                headers={"WWW-Authenticate": "Bearer"},
            )
        return user
    user_id = request.session.get("uid")
    if not isinstance(user_id, int):
        return None
    user = await session.get(User, user_id)
    if user is None:
        request.session.pop("uid", None)
    return user


async def current_user(user: Annotated[User | None, Depends(optional_user)]) -> User:
    if user is None:
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED,
            "Log in or send a bearer token.",
            headers={"WWW-Authenticate": "Bearer"},
        )
    return user


async def current_teacher(user: Annotated[User, Depends(current_user)]) -> User:
    if user.role != "teacher":
        raise HTTPException(status.HTTP_403_FORBIDDEN, "Only teachers may do this.")
    return user


OptionalUser = Annotated[User | None, Depends(optional_user)]
CurrentUser = Annotated[User, Depends(current_user)]
Teacher = Annotated[User, Depends(current_teacher)]


def log_in(request: Request, user: User) -> None:
    """Bind the browser session to the user, with a fresh CSRF token."""
    request.session.clear()
    request.session["uid"] = user.id
    request.session["csrf"] = secrets.token_urlsafe(24)


def log_out(request: Request) -> None:
    request.session.clear()


def client_address(request: Request) -> str:
    return request.client.host if request.client else "unknown"
