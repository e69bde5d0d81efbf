"""Names and Role Provisioning Services: the course's roster URL, learnt from launches, and
the roster read from it (all pages) with the platform's access token. What a sync does
with it is app/lti/service.py's sync_roster."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import httpx
from sqlalchemy.ext.asyncio import AsyncSession

from app.lti import claims
from app.lti.tokens import (
    AccessTokens,
    ServiceRefused,
    ServiceUnavailable,
    access_tokens,
)
from app.models import LtiContext, LtiPlatform

MEMBERSHIPS_MEDIA_TYPE = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
MAX_PAGES = 100


@dataclass(frozen=True)
class Member:
    user_id: str
    name: str | None
    teaching: bool
    active: bool


def learnt_from_launch(*, link: LtiContext, payload: dict[str, Any], platform_id: int) -> None:
    """Keep the roster URL the launch names (it may change; the latest is kept)."""
    service = payload.get(claims.NRPS)
    url = service.get("context_memberships_url") if isinstance(service, dict) else None
    if isinstance(url, str) and url:
        link.memberships_url, link.platform_id = url, platform_id


async def members(
    *,
    session: AsyncSession,
    platform: LtiPlatform,
    url: str,
    client: httpx.AsyncClient,
    tokens: AccessTokens = access_tokens,
) -> list[Member]:
    found: list[Member] = []
    next_url: str | None = url
    for _page in range(MAX_PAGES):
        if next_url is None:
            break
        body, next_url = await _page_of(session, platform, next_url, client, tokens)
        for entry in body.get("members") or []:
            if isinstance(entry, dict) and entry.get("user_id"):
                found.append(
                    Member(
                        user_id=str(entry["user_id"]),
                        name=entry.get("name") or entry.get("given_name") or None,
                        teaching=claims.teaches(entry.get("roles")),
                        active=entry.get("status", "Active") == "Active",
                    )
                )
    return found


async def _page_of(
    session: AsyncSession,
    platform: LtiPlatform,
    url: str,
    client: httpx.AsyncClient,
    tokens: AccessTokens,
) -> tuple[dict[str, Any], str | None]:
    for fresh_token in (False, True):
        token = await tokens.get(
            session=session, platform=platform, scope=claims.MEMBERSHIPS_SCOPE, client=client
        )
        try:
            answer = await client.get(
                url, headers={"Authorization": f"Bearer {token}", "Accept": MEMBERSHIPS_MEDIA_TYPE}
            )
        except httpx.HTTPError as exc:
            reason = f"no answer from the roster URL ({type(exc).__name__})"
            raise ServiceUnavailable(reason) from exc
        if answer.status_code == 401 and not fresh_token:
            tokens.forget(platform_id=platform.id, scope=claims.MEMBERSHIPS_SCOPE)
            continue
        if not answer.is_success:
            raise ServiceRefused(f"the roster URL answered {answer.status_code}")
        try:
            body = answer.json()
        except ValueError as exc:
            raise ServiceRefused("the roster URL answered something other than JSON") from exc
        if not isinstance(body, dict):
            raise ServiceRefused("the roster URL answered no membership container")
        return body, _next_link(answer) or (body.get("next") or None)
    raise ServiceUnavailable("the platform refused this tool's access token")


def _next_link(answer: httpx.Response) -> str | None:
    """The rel="next" URL of the Link header (NRPS pages with it)."""
    for part in answer.headers.get_list("link"):
        match = re.search(r'<([^>]+)>\s*;\s*rel="?next"?', part)
        if match:
            return match.group(1)
    return None
