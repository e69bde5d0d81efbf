"""Inside the LMS's iframe a browser that blocks third-party cookies keeps no session, so
the lesson would ask the user to log in. The launch then offers to open Tensorcamp in a new
window (a first-party page, where the cookie is kept): a form posted there carries a signed,
short-lived handoff naming the server-side session the launch started, which the new
window's cookie is bound to. It travels only in POST bodies (never a URL, so never a log)
and is worth nothing once that session ends."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from itsdangerous import BadSignature, URLSafeTimedSerializer

from app.auth.secret_key import session_secret

MAX_AGE_S = 300
SALT = "lti-handoff"


def _serializer(request: Request) -> URLSafeTimedSerializer:
    state = request.app.state
    serializer: URLSafeTimedSerializer | None = getattr(state, "lti_handoff", None)
    if serializer is None:
        serializer = URLSafeTimedSerializer(session_secret(state.settings), salt=SALT)
        state.lti_handoff = serializer
    return serializer


def make(request: Request, *, user_id: int, version: int, key: str, to: str) -> str:
    return str(_serializer(request).dumps({"uid": user_id, "sv": version, "sid": key, "to": to}))


def read(request: Request, handoff: str) -> dict[str, Any] | None:
    """The handoff's fields, or None if it is forged, malformed or older than MAX_AGE_S."""
    try:
        fields = _serializer(request).loads(handoff, max_age=MAX_AGE_S)
    except BadSignature:
        return None
    if not isinstance(fields, dict) or not all(
        isinstance(fields.get(name), kind)
        for name, kind in (("uid", int), ("sv", int), ("sid", str), ("to", str))
    ):
        return None
    return fields
