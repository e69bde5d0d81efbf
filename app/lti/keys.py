"""Keys: the tool's own RSA key pair (kept in the database, public half at /lti/jwks.json,
rotated with the old key published for a while) and the platforms' public keys (fetched
from their JWKS URL, cached, fetched again when a token names a key not seen yet)."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import httpx
from joserfc.errors import JoseError
from joserfc.jwk import KeySet, RSAKey
from sqlalchemy import or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import LtiToolKey

# A platform may still hold a token or a cached JWKS from before a rotation.
RETIRED_KEY_PUBLISHED = timedelta(days=7)
PLATFORM_KEYS_TTL_S = 600.0
# An unknown kid fetches the platform's JWKS again, but not more often than this.
REFRESH_AT_MOST_EVERY_S = 10.0
FETCH_TIMEOUT_S = 5.0


class PlatformKeysUnavailable(Exception):
    """The platform's JWKS could not be fetched or read."""


async def current_key(*, session: AsyncSession) -> LtiToolKey | None:
    return await session.scalar(
        select(LtiToolKey)
        .where(LtiToolKey.retired_at.is_(None))
        .order_by(LtiToolKey.created_at.desc(), LtiToolKey.id.desc())
        .limit(1)
    )


def _new_key() -> LtiToolKey:
    key = RSAKey.generate_key(2048, auto_kid=True)
    return LtiToolKey(kid=key.kid, private_jwk=_json(key.as_dict(private=True)))


def _json(value: dict[str, Any]) -> str:
    return json.dumps(value, sort_keys=True)


async def ensure_key(*, session: AsyncSession) -> LtiToolKey:
    """The tool's signing key, made the first time it is needed."""
    key = await current_key(session=session)
    if key is None:
        key = _new_key()
        session.add(key)
        await session.flush()
    return key


async def rotate_key(*, session: AsyncSession, now: datetime) -> LtiToolKey:
    """A new signing key; the previous one stays published for RETIRED_KEY_PUBLISHED."""
    previous = await current_key(session=session)
    if previous is not None:
        previous.retired_at = now
    key = _new_key()
    key.created_at = now
    session.add(key)
    await session.flush()
    return key


async def published_jwks(*, session: AsyncSession, now: datetime) -> dict[str, Any]:
    """The public halves of the current key and of keys retired recently."""
    rows = await session.scalars(
        select(LtiToolKey)
        .where(
            or_(
                LtiToolKey.retired_at.is_(None),
                LtiToolKey.retired_at > now - RETIRED_KEY_PUBLISHED,
            )
        )
        .order_by(LtiToolKey.created_at.desc(), LtiToolKey.id.desc())
    )
    keys = []
    for row in rows:
        public = RSAKey.import_key(json.loads(row.private_jwk)).as_dict(private=False)
        keys.append(public | {"kid": row.kid, "alg": "RS256", "use": "sig"})
    return {"keys": keys}


@dataclass
class _Fetched:
    keys: KeySet
    at: float


@dataclass
class PlatformKeys:
    """The platforms' key sets by JWKS URL, shared by the requests of one process."""

    fetched: dict[str, _Fetched] = field(default_factory=dict)

    async def key_for(self, *, jwks_url: str, kid: str) -> KeySet | None:
        """The platform's key set if it holds `kid` (fetched again once if it does not);
        None if even a fresh copy does not."""
        cached = self.fetched.get(jwks_url)
        if cached is None or time.monotonic() - cached.at > PLATFORM_KEYS_TTL_S:
            cached = await self._fetch(jwks_url)
        elif (
            not _holds(cached.keys, kid) and time.monotonic() - cached.at >= REFRESH_AT_MOST_EVERY_S
        ):
            cached = await self._fetch(jwks_url)  # rotated at the platform since
        return cached.keys if _holds(cached.keys, kid) else None

    async def _fetch(self, jwks_url: str) -> _Fetched:
        try:
            async with httpx.AsyncClient(timeout=FETCH_TIMEOUT_S) as client:
                answer = await client.get(jwks_url, headers={"Accept": "application/json"})
                answer.raise_for_status()
                keys = KeySet.import_key_set(answer.json())
        except (httpx.HTTPError, ValueError, JoseError, TypeError) as exc:
            raise PlatformKeysUnavailable(f"{jwks_url}: {type(exc).__name__}") from exc
        fetched = _Fetched(keys=keys, at=time.monotonic())
        self.fetched[jwks_url] = fetched
        return fetched


def _holds(keys: KeySet, kid: str) -> bool:
    return any(key.kid == kid for key in keys.keys)


platform_keys = PlatformKeys()
