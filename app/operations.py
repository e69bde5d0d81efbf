"""Liveness, readiness and metrics for operators and orchestrators."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from sqlalchemy import text

from app.db import Database
from app.submissions import metrics
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
async def prometheus(request: Request) -> PlainTextResponse:
    grading = grading_of(request)
    workers = await grading.workers() if grading else {}
    body = await metrics.render(request.app.state.database, workers)
    return PlainTextResponse(body, media_type="text/plain; version=0.0.4")
