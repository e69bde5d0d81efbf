"""Liveness, readiness and metrics for operators and orchestrators."""

from __future__ import annotations

import asyncio
import hmac
import ipaddress

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from sqlalchemy import text

from app import metrics
from app.config import Settings
from app.db import Database
from app.submissions.metrics import shared_families
from app.submissions.router import grading_of

router = APIRouter(tags=["operations"])
# Headers a reverse proxy adds: with one of them, a loopback peer is the proxy, not a scraper.
FORWARDING_HEADERS = ("x-forwarded-for", "forwarded", "x-real-ip")


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/readyz", responses={503: {"description": "A dependency is unreachable"}})
async def readyz(request: Request) -> Response:
    database: Database = request.app.state.database
    checks: dict[str, str] = {}
    try:
        async with database.sessionmaker() as session:
            await session.execute(text("SELECT 1"))
        checks["database"] = "ok"
    except Exception as exc:
        checks["database"] = f"unreachable: {type(exc).__name__}"
    grading = grading_of(request)
    if grading is None:
        checks["grading"] = "disabled"
    else:
        checks["grading"] = "ok" if await grading.ready() else "unreachable"
    ready = checks["database"] == "ok" and checks["grading"] in ("ok", "disabled")
    return JSONResponse(
        {"status": "ready" if ready else "not ready", "checks": checks}, 200 if ready else 503
    )


def require_metrics_access(request: Request) -> None:
    """With METRICS_TOKEN: its bearer. Without: a scraper on this host only, reaching the
    process directly; a request a proxy forwarded (the proxy may be on this host too) or
    one from anywhere else is refused, so the numbers are never public by accident."""
    settings: Settings = request.app.state.settings
    if settings.metrics_token:
        given = request.headers.get("authorization", "")
        expected = f"Bearer {settings.metrics_token}"
        if not hmac.compare_digest(given.encode(), expected.encode()):
            raise HTTPException(
                401,
                "/metrics needs Authorization: Bearer <METRICS_TOKEN>",
                headers={"WWW-Authenticate": "Bearer"},
            )
        return
    host = request.client.host if request.client else ""
    forwarded = any(name in request.headers for name in FORWARDING_HEADERS)
    if forwarded or not _loopback(host):
        raise HTTPException(403, "/metrics is served to this host only unless METRICS_TOKEN is set")


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@router.get(
    "/metrics",
    response_class=PlainTextResponse,
    dependencies=[Depends(require_metrics_access)],
    responses={
        401: {"description": "No or a wrong METRICS_TOKEN"},
        403: {"description": "Not from this host"},
    },
)
async def prometheus(request: Request) -> Response:
    """Every web process's counters and histograms, and what this scrape reads once from
    shared state (stored bytes, workers, the shared queue)."""
    families = await shared_families(request.app.state.database, grading_of(request))
    body = await asyncio.to_thread(metrics.exposition, families)  # reads every process's files
    return Response(body, media_type=metrics.CONTENT_TYPE)
