"""Who is calling: a bearer token or the session cookie (CSRF for cookie-borne requests:
app/web/csrf.py)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated

from fastapi import BackgroundTasks, Depends, HTTPException, Request, status
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncSession

from app.auth import sessions, tokens
from app.db import Database, get_database
from app.models import Role, User, utcnow
from app.web.credentials import bearer_token
from app.web.csrf import renew_csrf_token

log = logging.getLogger("app")

# What the signed cookie holds for a logged-in browser (app/auth/sessions.py).
USER_ID, VERSION, SESSION_KEY = "uid", "sv", "sid"


@dataclass(frozen=True)
class PageUser:
    """What templates show of the caller: plain values, not the ORM row, so that an error
    page rendered after the request's unit of work rolled back (which expires every row
    of the session) can still show who is logged in."""

    id: int
    username: str
    role: Role
    created_at: datetime
    display_name: str = ""


async def optional_user(request: Request, background: BackgroundTasks) -> User | None:
    # A short read session of its own: the request's unit of work (on SQLite, the single
    # writer for unsafe methods) is then held only for the endpoint's own work.
    database = get_database(request)
    async with database.sessionmaker() as reader:
        user = await _resolve_user(request, reader, background)
    request.state.user = (
        PageUser(user.id, user.username, user.role, user.created_at, user.display_name)
        if user
        else None
    )
    return user


async def _resolve_user(
    request: Request, session: AsyncSession, background: BackgroundTasks
) -> User | None:
    now = utcnow()
    if token := bearer_token(request):
        found = await tokens.token_owner(session=session, token=token, now=now)
        if found is None:
            raise HTTPException(
                status.HTTP_401_UNAUTHORIZED,
                "The token is not valid (unknown, expired or revoked).",
                headers={"WWW-Authenticate": "Bearer"},
            )
        user, row = found
        if tokens.needs_touch(row, now):
            background.add_task(_note_token_use, get_database(request), row.id)
        return user
    user_id, version, key = (request.session.get(k) for k in (USER_ID, VERSION, SESSION_KEY))
    if user_id is None:
        return None
    found_user: User | None = None
    if isinstance(user_id, int) and isinstance(version, int) and isinstance(key, str):
        found_user = await sessions.session_user(
            session=session,
            user_id=user_id,
            version=version,
            key=key,
            max_age_s=request.app.state.settings.session_max_age_s,
            now=now,
        )
    if found_user is None:  # logged out, here or everywhere, or from before sessions were kept
        _forget_user(request)
    return found_user


async def _note_token_use(database: Database, token_id: int) -> None:
    """After the answer is sent: "last used" is for people, never worth failing a request."""
    try:
        async with database.writer() as session, session.begin():
            await tokens.touch_token(session=session, token_id=token_id, now=utcnow())
    except SQLAlchemyError:
        log.warning("could not note the use of API token %s", token_id, exc_info=True)


async def current_user(user: Annotated[User | None, Depends(optional_user)]) -> User:
    if user is None:
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED,
            "Log in or send a bearer token.",
            headers={"WWW-Authenticate": "Bearer"},
        )
    return user


async def current_teacher(user: Annotated[User, Depends(current_user)]) -> User:
    if user.role != Role.TEACHER:
        raise HTTPException(status.HTTP_403_FORBIDDEN, "Only teachers may do this.")
    return user


OptionalUser = Annotated[User | None, Depends(optional_user)]
CurrentUser = Annotated[User, Depends(current_user)]
Teacher = Annotated[User, Depends(current_teacher)]


def log_in(request: Request, user: User, key: str) -> None:
    """Bind the browser session to the user and the server-side session `key`
    (sessions.start_session), with a fresh CSRF token."""
    request.session.clear()
    request.session[USER_ID] = user.id
    request.session[VERSION] = user.session_version
    request.session[SESSION_KEY] = key
    renew_csrf_token(request)


def session_key(request: Request) -> str | None:
    key = request.session.get(SESSION_KEY)
    return key if isinstance(key, str) else None


def log_out(request: Request) -> None:
    request.session.clear()


def _forget_user(request: Request) -> None:
    # The CSRF token stays: the page being shown still carries it in its forms.
    for field in (USER_ID, VERSION, SESSION_KEY):
        request.session.pop(field, None)


def client_address(request: Request) -> str:
    return request.client.host if request.client else "unknown"
