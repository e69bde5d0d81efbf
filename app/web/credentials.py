"""The credentials a request may carry: the session cookie (ambient: the browser sends it
to any request for this site) and a bearer token (sent only by code that holds it). Who the
caller is, app/auth/dependencies.py decides; CSRF (app/web/csrf.py) guards the first kind."""

from __future__ import annotations

from fastapi import Request

SESSION_COOKIE = "session"


def bearer_token(request: Request) -> str | None:
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None
