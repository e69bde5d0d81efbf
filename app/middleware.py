"""Pure ASGI middleware: body size cap (413) before anything parses the body; request
latency by route template for /metrics; the security headers of every answer."""

from __future__ import annotations

import json
import secrets
import time

from starlette.datastructures import URL, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app import metrics
from app.asgi import HttpMiddleware
from app.config import Settings
from app.urls import route_path
from app.web.templating import CSP_NONCE

UNMATCHED = "unmatched"  # the route label of requests no route took (404s, refused bodies)
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
STATIC = "/static/"  # the one place answers may be cached: files the same for everyone
HSTS_MAX_AGE_S = 365 * 24 * 3600
# Scripts, styles, fonts and fetches from the site itself only; no inline script or style
# (the templates have none), no plugins, no <base>, forms posted back to the site only.
CSP = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "img-src": "'self' data:",
    "font-src": "'self'",
    "connect-src": "'self'",
    "object-src": "'none'",
    "base-uri": "'none'",
    "form-action": "'self'",
}


class BodySizeLimit(HttpMiddleware):
    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        super().__init__(app)
        self.max_bytes = max_bytes

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        for name, value in scope["headers"]:
            if name == b"content-length" and value.isdigit() and int(value) > self.max_bytes:
                await self._reject(send)
                return
        received = 0
        rejected = False

        async def limited_receive() -> Message:
            # A chunked body has no Content-Length: count as it streams in. Past the limit,
            # answer 413 ourselves and tell the app the client has gone, so whatever it
            # does next (FastAPI would answer 400) is never sent.
            nonlocal received, rejected
            if rejected:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    rejected = True
                    await self._reject(send)
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: Message) -> None:
            if not rejected:
                await send(message)

        await self.app(scope, limited_receive, guarded_send)

    async def _reject(self, send: Send) -> None:
        body = json.dumps(
            {"detail": f"The request body is larger than {self.max_bytes // 1024} KiB."}
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


class RequestMetrics(HttpMiddleware):
    """Times every HTTP request into tensorcamp_http_request_duration_seconds. Labelled by
    the route's template (`/api/submissions/{submission_id}`), never the raw path, so ids
    and probes for random URLs add no series."""

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        status = 500  # unless a response starts: an exception escaped the app

        async def send_and_note(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        root_path = scope.get("root_path", "")
        started = time.perf_counter()
        metrics.HTTP_IN_PROGRESS.inc()
        try:
            await self.app(scope, receive, send_and_note)
        finally:
            metrics.HTTP_IN_PROGRESS.dec()
            metrics.HTTP_DURATION.labels(
                method=scope["method"] if scope["method"] in METHODS else "other",
                route=_route_template(scope, root_path),
                status=f"{status // 100}xx",
            ).observe(time.perf_counter() - started)


def _route_template(scope: Scope, root_path: str) -> str:
    """What the router wrote into the scope on its way in: the matched route, or for a
    mounted app (/static) the root path it added."""
    route = getattr(scope.get("route"), "path", None)
    if route:
        return str(route)
    mounted = scope.get("root_path", "")
    if mounted != root_path and mounted.startswith(root_path):
        return f"{mounted[len(root_path) :]}/{{path}}"
    return UNMATCHED


def content_security_policy(settings: Settings) -> str:
    """The policy of every answer, but for its style nonce: `style-src` comes last, so each
    answer appends its own " 'nonce-...'", which admits the one <style> element the editor
    (CodeMirror, app.js) adds, and no other. FRAME_ANCESTORS names who may frame the pages."""
    directives = {name: value for name, value in CSP.items() if name != "style-src"}
    directives["frame-ancestors"] = " ".join(settings.frame_ancestor_list) or "'none'"
    directives["style-src"] = CSP["style-src"]
    return "; ".join(f"{name} {value}" for name, value in directives.items())


class SecurityHeaders(HttpMiddleware):
    """Adds the security headers to every answer, refusals included, unless the route set
    its own. Nothing is cached except static files: every other answer may carry a user's
    data or a CSRF token, and a shared computer's back button must not show it."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        super().__init__(app)
        self.policy = content_security_policy(settings)
        self.headers = {
            "x-content-type-options": "nosniff",
            "referrer-policy": "same-origin",
        }
        if not settings.frame_ancestor_list:  # the same for browsers without frame-ancestors
            self.headers["x-frame-options"] = "DENY"
        if settings.cookie_secure:  # served over HTTPS: browsers should never try plain HTTP
            self.headers["strict-transport-security"] = f"max-age={HSTS_MAX_AGE_S}"

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        static = route_path(scope).startswith(STATIC)
        # A new nonce for every answer; pages hand it to the editor (base.html's meta tag).
        nonce = secrets.token_urlsafe(16)
        scope.setdefault("state", {})[CSP_NONCE] = nonce
        policy = f"{self.policy} 'nonce-{nonce}'"

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers.setdefault("content-security-policy", policy)
                for name, value in self.headers.items():
                    headers.setdefault(name, value)
                if not static:
                    headers.setdefault("cache-control", "no-store")
                if location := headers.get("location"):
                    headers["location"] = _without_own_origin(location, scope)
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _without_own_origin(location: str, scope: Scope) -> str:
    """A redirect Starlette makes itself (a trailing slash) points to the origin the client
    named (its Host header, which it chooses); such a one is sent as a path instead."""
    request_url = URL(scope=scope)
    own_origin = f"{request_url.scheme}://{request_url.netloc}/"
    return location[len(own_origin) - 1 :] if location.startswith(own_origin) else location
