"""Liveness, readiness and metrics for operators and orchestrators."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from sqlalchemy import text

from app import metrics
from app.db import Database
from app.submissions.metrics import shared_families
from app.submissions.router import grading_of

router = APIRouter(tags=["operations"])


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


@router.get("/metrics", response_class=PlainTextResponse)
async def prometheus(request: Request) -> Response:
    """Every web process's counters and histograms, and what this scrape reads once from
    shared state (stored bytes, workers, the shared queue)."""
    families = await shared_families(request.app.state.database, grading_of(request))
    body = await asyncio.to_thread(metrics.exposition, families)  # reads every process's files
    return Response(body, media_type=metrics.CONTENT_TYPE)
