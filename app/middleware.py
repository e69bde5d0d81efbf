"""Pure ASGI middleware: body size cap (413) before anything parses the body; request
latency by route template for /metrics."""

from __future__ import annotations

import json
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app import metrics

UNMATCHED = "unmatched"  # the route label of requests no route took (404s, refused bodies)
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


class BodySizeLimit:
    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
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


class RequestMetrics:
    """Times every HTTP request into tensorcamp_http_request_duration_seconds. Labelled by
    the route's template (`/api/submissions/{submission_id}`), never the raw path, so ids
    and probes for random URLs add no series."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
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
