"""Jinja2 set-up shared by every domain's pages."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.templating import Jinja2Templates
from starlette.responses import HTMLResponse

from app.auth.dependencies import CSRF_FIELD, csrf_token
from app.config import REPO_ROOT

templates = Jinja2Templates(directory=str(REPO_ROOT / "app" / "templates"))
templates.env.globals["csrf_field"] = CSRF_FIELD
LEVEL_NAMES = {"beginner": "Beginner", "intermediate": "Intermediate", "advanced": "Advanced"}
templates.env.filters["level_name"] = lambda level: LEVEL_NAMES.get(level, level.title())


def render(
    request: Request,
    name: str,
    context: dict[str, Any] | None = None,
    *,
    status_code: int = 200,
) -> HTMLResponse:
    context = dict(context or {})
    context.setdefault("user", getattr(request.state, "user", None))
    context["csrf_token"] = csrf_token(request)
    return templates.TemplateResponse(request, name, context, status_code=status_code)
