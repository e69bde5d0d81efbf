"""CSRF: every unsafe request that carries the session cookie presents the session's token,
as the `csrf_token` form field or the `X-CSRF-Token` header (docs/architecture.md)."""

from __future__ import annotations

import hmac
import secrets

from fastapi import HTTPException, Request, status

from app.web.credentials import SESSION_COOKIE, bearer_token

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf_token"
FORM_MEDIA_TYPES = frozenset({"application/x-www-form-urlencoded", "multipart/form-data"})
_SESSION_KEY = "csrf"  # where the signed session cookie holds the token


def csrf_token(request: Request) -> str:
    """The session's CSRF token, made on first use (so anonymous forms carry one too)."""
    token = request.session.get(_SESSION_KEY)
    if not token:
        token = renew_csrf_token(request)
    return str(token)


def renew_csrf_token(request: Request) -> str:
    """A fresh token for the session (log-in starts one), so a token seen before is void."""
    token = secrets.token_urlsafe(24)
    request.session[_SESSION_KEY] = token
    return token


def tokens_match(given: str | None, expected: str | None) -> bool:
    return bool(given and expected) and hmac.compare_digest(str(given), str(expected))


async def require_csrf(request: Request) -> None:
    if request.method in SAFE_METHODS or bearer_token(request):
        return
    # Media types are case-insensitive: `Application/X-WWW-Form-Urlencoded` is a form too.
    media_type = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    is_form = media_type in FORM_MEDIA_TYPES
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
    if not tokens_match(given, request.session.get(_SESSION_KEY)):
        raise HTTPException(
            status.HTTP_403_FORBIDDEN,
            "The form has expired or the CSRF token is missing; reload the page and try again.",
        )
