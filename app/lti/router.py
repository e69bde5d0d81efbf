"""The tool's public keys, at a stable URL a platform is given once."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from app.db import SessionDep
from app.lti import keys
from app.models import utcnow

# A protocol URL for LMSs (docs/lti.md), not part of the JSON API of docs/api.md.
router = APIRouter(include_in_schema=False)


@router.get("/lti/jwks.json")
async def jwks(session: SessionDep) -> JSONResponse:
    published: dict[str, Any] = await keys.published_jwks(session=session, now=utcnow())
    # Platforms cache it; a rotation keeps the old key listed long past this.
    return JSONResponse(published, headers={"Cache-Control": "public, max-age=3600"})
