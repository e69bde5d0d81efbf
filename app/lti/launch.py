"""Validating a launch: the state from the OIDC login, then the id_token (signature by the
platform's key named by kid, iss, aud, azp, nonce, exp/iat, deployment, message type and
version). Each refusal is a LaunchRefused whose message says what was wrong, in words
that never include the token."""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

from joserfc import jws, jwt
from joserfc.errors import BadSignatureError, JoseError
from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.auth.security import token_digest
from app.i18n import N_
from app.lti import claims
from app.lti.keys import PlatformKeys, PlatformKeysUnavailable
from app.models import LtiDeployment, LtiLogin, LtiPlatform

CLOCK_SKEW_S = 60
MESSAGE_TYPES = (claims.RESOURCE_LINK_REQUEST, claims.DEEP_LINKING_REQUEST)


class LaunchRefused(Exception):
    """A launch that is not accepted. `message` (marked with N_, translated when shown)
    with `fields` filled in is the reason, safe to show; str() is it in English."""

    def __init__(self, message: str, **fields: object) -> None:
        self.message, self.fields = message, fields
        super().__init__(message % fields if fields else message)


async def take_login(*, session: AsyncSession, state: str, now: datetime) -> LtiLogin:
    """The login the state belongs to, removed so that it serves one launch only."""
    login = await session.scalar(
        delete(LtiLogin).where(LtiLogin.state_hash == token_digest(state)).returning(LtiLogin)
    )
    if login is None or login.expires_at <= now:
        raise LaunchRefused(
            N_(
                "The launch's state is unknown, was already used or has expired. "
                "Open the activity again from your course."
            )
        )
    return login


async def verified_claims(
    *,
    session: AsyncSession,
    id_token: str,
    login: LtiLogin,
    keys: PlatformKeys,
) -> dict[str, Any]:
    platform = await session.get(LtiPlatform, login.platform_id)
    if platform is None:
        raise LaunchRefused(N_("The platform this launch started from is no longer registered."))
    payload = await _verified(id_token=id_token, platform=platform, keys=keys)
    _check_identity(payload, platform=platform, nonce=login.nonce)
    deployment = payload.get(claims.DEPLOYMENT_ID)
    known = await session.scalar(
        select(LtiDeployment.id).where(
            LtiDeployment.platform_id == platform.id,
            LtiDeployment.deployment_id == str(deployment),
        )
    )
    if known is None:
        raise LaunchRefused(
            N_(
                "The deployment %(deployment)s is not registered for this platform; "
                "an administrator adds it with `python -m app lti add-platform`."
            ),
            deployment=repr(deployment),
        )
    if payload.get(claims.MESSAGE_TYPE) not in MESSAGE_TYPES:
        raise LaunchRefused(
            N_("The message type %(given)s is not supported here; only %(supported)s are."),
            given=repr(payload.get(claims.MESSAGE_TYPE)),
            supported=" and ".join(MESSAGE_TYPES),
        )
    if payload.get(claims.VERSION) != claims.LTI_VERSION:
        raise LaunchRefused(
            N_("The LTI version %(given)s is not supported; only %(supported)s is."),
            given=repr(payload.get(claims.VERSION)),
            supported=claims.LTI_VERSION,
        )
    if not isinstance(payload.get("sub"), str) or not payload["sub"]:
        raise LaunchRefused(N_("The launch names no user (its sub claim is empty)."))
    return payload


async def _verified(*, id_token: str, platform: LtiPlatform, keys: PlatformKeys) -> dict[str, Any]:
    try:
        header = jws.extract_compact(id_token.encode()).protected
    except (JoseError, ValueError) as exc:
        raise LaunchRefused(N_("The id_token is not a signed JSON Web Token.")) from exc
    kid = header.get("kid")
    if not isinstance(kid, str) or not kid:
        raise LaunchRefused(N_("The id_token names no signing key (no kid in its header)."))
    try:
        key_set = await keys.key_for(jwks_url=platform.jwks_url, kid=kid)
    except PlatformKeysUnavailable as exc:
        raise LaunchRefused(
            N_("The platform's public keys could not be fetched from %(url)s."),
            url=platform.jwks_url,
        ) from exc
    if key_set is None:
        raise LaunchRefused(
            N_(
                "The id_token is signed with a key (%(kid)s) that the platform does not "
                "publish at %(url)s."
            ),
            kid=kid,
            url=platform.jwks_url,
        )
    try:
        token = jwt.decode(id_token, key_set, algorithms=["RS256"])
    except BadSignatureError as exc:
        raise LaunchRefused(
            N_("The id_token's signature does not match the platform's key.")
        ) from exc
    except (JoseError, ValueError) as exc:
        raise LaunchRefused(N_("The id_token could not be read.")) from exc
    return dict(token.claims)


def _check_identity(payload: dict[str, Any], *, platform: LtiPlatform, nonce: str) -> None:
    if payload.get("iss") != platform.issuer:
        raise LaunchRefused(
            N_("The id_token was issued by %(given)s, not by %(issuer)s."),
            given=repr(payload.get("iss")),
            issuer=repr(platform.issuer),
        )
    audience = payload.get("aud")
    audiences = audience if isinstance(audience, list) else [audience]
    if platform.client_id not in audiences:
        raise LaunchRefused(
            N_("The id_token is meant for %(given)s, not for this tool's client id %(client_id)s."),
            given=repr(audience),
            client_id=repr(platform.client_id),
        )
    azp = payload.get("azp")
    if (len(audiences) > 1 or azp is not None) and azp != platform.client_id:
        raise LaunchRefused(
            N_("The id_token's authorized party (azp) is %(given)s, not %(client_id)s."),
            given=repr(azp),
            client_id=repr(platform.client_id),
        )
    if payload.get("nonce") != nonce:
        raise LaunchRefused(N_("The id_token's nonce is not the one this login sent."))
    now = time.time()
    exp, iat = payload.get("exp"), payload.get("iat")
    if not isinstance(exp, int | float) or exp < now - CLOCK_SKEW_S:
        raise LaunchRefused(
            N_("The id_token has expired; open the activity again from your course.")
        )
    if not isinstance(iat, int | float) or iat > now + CLOCK_SKEW_S:
        raise LaunchRefused(N_("The id_token's issue time (iat) is missing or in the future."))
