"""Access tokens for the platform's LTI Advantage services (scores, rosters): the OAuth2
client-credentials grant with a JWT assertion signed by the tool's key (IMS Security
Framework 1.0, section 4.1), kept until shortly before they expire."""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass, field

import httpx
from joserfc import jwt
from joserfc.jwk import RSAKey
from sqlalchemy.ext.asyncio import AsyncSession

from app.lti import keys
from app.models import LtiPlatform

ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
ASSERTION_LIFETIME_S = 300
# A token is asked for again this long before the platform said it expires.
EXPIRY_MARGIN_S = 60
REQUEST_TIMEOUT_S = 10.0


class ServiceError(Exception):
    """A platform's service did not do what was asked; str() says why, without tokens."""


class ServiceUnavailable(ServiceError):
    """The platform did not answer, or answered that it cannot now: worth trying later."""


class ServiceRefused(ServiceError):
    """The platform answered that this request will never succeed as it is."""


def transient(status: int) -> bool:
    """Whether an HTTP status says "try again later" rather than "never"."""
    return status >= 500 or status in (401, 408, 425, 429)


async def assertion(*, session: AsyncSession, platform: LtiPlatform) -> str:
    """The JWT that authenticates this tool at the platform's token URL."""
    key = await keys.ensure_key(session=session)
    now = int(time.time())
    claims = {
        "iss": platform.client_id,
        "sub": platform.client_id,
        "aud": platform.token_url,
        "iat": now,
        "exp": now + ASSERTION_LIFETIME_S,
        "jti": secrets.token_urlsafe(16),
    }
    signing_key = RSAKey.import_key(json.loads(key.private_jwk))
    return jwt.encode({"alg": "RS256", "kid": key.kid, "typ": "JWT"}, claims, signing_key)


@dataclass
class _Token:
    value: str
    expires: float


@dataclass
class AccessTokens:
    """Tokens by platform and scope, shared by the work of one process."""

    held: dict[tuple[int, str], _Token] = field(default_factory=dict)

    async def get(
        self,
        *,
        session: AsyncSession,
        platform: LtiPlatform,
        scope: str,
        client: httpx.AsyncClient,
    ) -> str:
        held = self.held.get((platform.id, scope))
        if held is not None and held.expires > time.monotonic():
            return held.value
        form = {
            "grant_type": "client_credentials",
            "client_assertion_type": ASSERTION_TYPE,
            "client_assertion": await assertion(session=session, platform=platform),
            "scope": scope,
        }
        try:
            answer = await client.post(
                platform.token_url, data=form, headers={"Accept": "application/json"}
            )
        except httpx.HTTPError as exc:
            raise ServiceUnavailable(f"token URL: {type(exc).__name__}") from exc
        if answer.status_code != 200:
            # Refused credentials are kept for a later try too: an administrator who has
            # not yet given the platform this tool's keys will, and no score is lost.
            raise ServiceUnavailable(f"token URL answered {answer.status_code}")
        try:
            body = answer.json()
            value, lifetime = str(body["access_token"]), float(body.get("expires_in", 3600))
        except (ValueError, KeyError, TypeError) as exc:
            raise ServiceUnavailable("token URL answered no access_token") from exc
        self.held[(platform.id, scope)] = _Token(
            value, time.monotonic() + max(0.0, lifetime - EXPIRY_MARGIN_S)
        )
        return value

    def forget(self, *, platform_id: int, scope: str) -> None:
        """A token the platform no longer takes (rotated keys, revoked): ask again."""
        self.held.pop((platform_id, scope), None)


access_tokens = AccessTokens()
