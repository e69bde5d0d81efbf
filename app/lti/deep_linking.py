"""Deep Linking 2.0: a teacher, launched from the course with an LtiDeepLinkingRequest,
picks lessons or single exercises from the catalog; the tool answers the platform with an
LtiDeepLinkingResponse signed by its key, one content item (an LTI resource link) each,
with a line item so that the platform makes a gradebook column for it.

Between the request and the teacher's choice the request's settings travel in the picker
form itself, signed (no cookie is needed inside the platform's iframe)."""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass
from typing import Any

from fastapi import Request
from itsdangerous import BadSignature, URLSafeTimedSerializer
from joserfc import jwt
from joserfc.jwk import RSAKey
from sqlalchemy.ext.asyncio import AsyncSession

from app.auth.secret_key import session_secret
from app.lti import claims, keys
from app.models import Exercise, Lesson, LtiPlatform

PICK_MAX_AGE_S = 3600
RESPONSE_LIFETIME_S = 600
SALT = "lti-deep-link"
# Points in the platform's gradebook column; the tool sends 0-1 scores, which the platform
# scales to it.
SCORE_MAXIMUM = 100
TAG = "tensorcamp"


@dataclass(frozen=True)
class Picking:
    """What the deep-linking request asked for, kept until the teacher has chosen."""

    platform_id: int
    deployment_id: str
    return_url: str
    data: Any  # opaque to the tool: sent back as it came
    accept_multiple: bool


def picking_of(payload: dict[str, Any], *, platform_id: int) -> Picking | None:
    """The request's deep-linking settings; None if it has no return URL or does not take
    LTI resource links."""
    settings = payload.get(claims.DEEP_LINKING_SETTINGS)
    if not isinstance(settings, dict):
        return None
    return_url = settings.get("deep_link_return_url")
    accepted = settings.get("accept_types")
    if not isinstance(return_url, str) or not return_url:
        return None
    if isinstance(accepted, list) and "ltiResourceLink" not in accepted:
        return None
    return Picking(
        platform_id=platform_id,
        deployment_id=str(payload[claims.DEPLOYMENT_ID]),
        return_url=return_url,
        data=settings.get("data"),
        accept_multiple=settings.get("accept_multiple") is not False,
    )


def _serializer(request: Request) -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(session_secret(request.app.state.settings), salt=SALT)


def seal(request: Request, picking: Picking) -> str:
    return str(_serializer(request).dumps(picking.__dict__))


def unseal(request: Request, sealed: str) -> Picking | None:
    try:
        fields = _serializer(request).loads(sealed, max_age=PICK_MAX_AGE_S)
        return Picking(**fields)
    except (BadSignature, TypeError):
        return None


def content_item(
    *, base_url: str, lesson: Lesson, exercise: Exercise | None, language: str
) -> dict[str, Any]:
    """An LTI resource link to a lesson or to one exercise, with its gradebook column."""
    if exercise is None:
        title, custom = str(lesson.in_language("title", language)), {"lesson": lesson.slug}
        url, resource = f"{base_url}/lessons/{lesson.slug}", lesson.slug
    else:
        title = str(exercise.in_language("title", language))
        custom = {"exercise": exercise.id}
        url = f"{base_url}/lessons/{lesson.slug}#exercise-{exercise.id}"
        resource = exercise.id
    return {
        "type": "ltiResourceLink",
        "title": title,
        "url": url,
        "custom": custom,
        "lineItem": {
            "scoreMaximum": SCORE_MAXIMUM,
            "label": title,
            "resourceId": resource,
            "tag": TAG,
        },
    }


async def response_jwt(
    *, session: AsyncSession, platform: LtiPlatform, picking: Picking, items: list[dict[str, Any]]
) -> str:
    """The LtiDeepLinkingResponse, signed by the tool's current key."""
    key = await keys.ensure_key(session=session)
    now = int(time.time())
    message: dict[str, Any] = {
        "iss": platform.client_id,
        "aud": platform.issuer,
        "iat": now,
        "exp": now + RESPONSE_LIFETIME_S,
        "nonce": secrets.token_urlsafe(16),
        claims.DEPLOYMENT_ID: picking.deployment_id,
        claims.MESSAGE_TYPE: claims.DEEP_LINKING_RESPONSE,
        claims.VERSION: claims.LTI_VERSION,
        claims.CONTENT_ITEMS: items,
    }
    if picking.data is not None:
        message[claims.DEEP_LINKING_DATA] = picking.data
    signing_key = RSAKey.import_key(json.loads(key.private_jwk))
    return jwt.encode({"alg": "RS256", "kid": key.kid, "typ": "JWT"}, message, signing_key)
