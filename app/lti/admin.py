"""/admin/lti: an administrator registers the learning platforms (LMSs) this tool runs
inside, lists and removes them, and reads what to paste into a platform (URLs, Canvas's
JSON). The same as `python -m app lti` on the command line; plain forms that redirect (303)
back, CSRF-checked like every other."""

from __future__ import annotations

import json
from typing import Annotated, Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Form, Request, status
from fastapi.responses import Response
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.auth.admin import require_admin
from app.auth.dependencies import OptionalUser
from app.db import SessionDep
from app.i18n import N_, gettext
from app.ids import DbId
from app.lti import keys, service
from app.lti.tool_config import canvas_json, tool_urls
from app.models import LtiPlatform, User
from app.models.lti import LtiLineItem, LtiScore
from app.web.flash import flash, take_flash
from app.web.login import LoginRequired
from app.web.redirects import see_other
from app.web.templating import render

router = APIRouter(include_in_schema=False)
FIELD_MAX = 1000
URL_FIELDS = ("auth_url", "token_url", "jwks_url")
NEEDS_A_VALUE = N_("Fill this in.")
NOT_A_URL = N_("An address starting with https:// (or http:// on a test machine).")


def _admin(request: Request, user: User | None) -> Response | None:
    """The log-in page for a visitor, 403 for anyone but an administrator, else None."""
    if user is None:
        raise LoginRequired(request.url.path)
    require_admin(user)
    return None


async def _outbox(session: AsyncSession) -> dict[int, dict[str, Any]]:
    """Per platform: scores waiting to be delivered, scores refused, and the last error."""
    rows = await session.execute(
        select(
            LtiLineItem.platform_id,
            func.count().filter(LtiScore.sent_at.is_(None), LtiScore.failed_at.is_(None)),
            func.count().filter(LtiScore.failed_at.is_not(None)),
            func.max(LtiScore.last_error),
        )
        .join(LtiScore, LtiScore.line_item_id == LtiLineItem.id)
        .where(LtiScore.sent_at.is_(None))
        .group_by(LtiLineItem.platform_id)
    )
    return {
        platform_id: {"waiting": waiting, "refused": refused, "error": error}
        for platform_id, waiting, refused, error in rows
    }


async def _page(
    request: Request,
    session: AsyncSession,
    *,
    errors: dict[str, str] | None = None,
    values: dict[str, str] | None = None,
    status_code: int = status.HTTP_200_OK,
) -> Response:
    base = request.app.state.settings.effective_public_base_url
    await keys.ensure_key(session=session)  # the JWKS URL shown has a key behind it
    context = {
        "platforms": await service.list_platforms(session=session),
        "outbox": await _outbox(session),
        "urls": tool_urls(base),
        "canvas_json": json.dumps(canvas_json(base), indent=2),
        "errors": errors or {},
        "values": values or {},
        "flash": take_flash(request),
    }
    return render(request, "lti/admin.html", context, status_code=status_code)


@router.get("/admin/lti")
async def admin_page(request: Request, session: SessionDep, user: OptionalUser) -> Response:
    if (refused := _admin(request, user)) is not None:
        return refused
    return await _page(request, session)


def _errors(values: dict[str, str], deployment_ids: list[str]) -> dict[str, str]:
    errors = {
        name: gettext(NEEDS_A_VALUE)
        for name in ("issuer", "client_id", *URL_FIELDS)
        if not values[name]
    }
    for name in URL_FIELDS:
        parts = urlsplit(values[name])
        if values[name] and (parts.scheme not in ("http", "https") or not parts.netloc):
            errors[name] = gettext(NOT_A_URL)
    if not deployment_ids:
        errors["deployment_ids"] = gettext(NEEDS_A_VALUE)
    return errors


@router.post("/admin/lti/platforms")
async def add_platform(
    request: Request,
    session: SessionDep,
    user: OptionalUser,
    issuer: Annotated[str, Form(max_length=255)] = "",
    client_id: Annotated[str, Form(max_length=255)] = "",
    deployment_ids: Annotated[str, Form(max_length=FIELD_MAX)] = "",
    auth_url: Annotated[str, Form(max_length=FIELD_MAX)] = "",
    token_url: Annotated[str, Form(max_length=FIELD_MAX)] = "",
    jwks_url: Annotated[str, Form(max_length=FIELD_MAX)] = "",
) -> Response:
    if (refused := _admin(request, user)) is not None:
        return refused
    values = {
        "issuer": issuer.strip(),
        "client_id": client_id.strip(),
        "deployment_ids": deployment_ids,
        "auth_url": auth_url.strip(),
        "token_url": token_url.strip(),
        "jwks_url": jwks_url.strip(),
    }
    # One a line, or separated by commas: what platforms show is pasted as it comes.
    deployments = [d.strip() for d in deployment_ids.replace(",", "\n").splitlines() if d.strip()]
    errors = _errors(values, deployments)
    if not errors:
        try:
            await service.add_platform(
                session=session,
                issuer=values["issuer"],
                client_id=values["client_id"],
                deployment_ids=deployments,
                auth_url=values["auth_url"],
                token_url=values["token_url"],
                jwks_url=values["jwks_url"],
            )
        except service.PlatformExists:
            errors["client_id"] = gettext(
                "This platform is registered with this client id already; remove it first "
                "to change it."
            )
    if errors:
        return await _page(
            request,
            session,
            errors=errors,
            values=values,
            status_code=status.HTTP_422_UNPROCESSABLE_CONTENT,
        )
    flash(request, gettext("Platform %(issuer)s registered.") % {"issuer": values["issuer"]})
    return see_other("/admin/lti")


@router.post("/admin/lti/platforms/{platform_id}/remove")
async def remove_platform(
    platform_id: DbId, request: Request, session: SessionDep, user: OptionalUser
) -> Response:
    if (refused := _admin(request, user)) is not None:
        return refused
    platform = await session.get(LtiPlatform, platform_id)
    if platform is not None:
        await service.remove_platform(
            session=session, issuer=platform.issuer, client_id=platform.client_id
        )
        removed = gettext(
            "Platform %(issuer)s removed; accounts and classes made by its launches stay."
        )
        flash(request, removed % {"issuer": platform.issuer})
    return see_other("/admin/lti")
