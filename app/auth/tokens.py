"""API tokens: named, expiring, listed and revoked by their owner. Only a digest of each
token is stored; the token itself is shown once, when made."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.auth.security import new_token, token_digest
from app.models import ApiToken, User, utcnow

DEFAULT_DAYS = 90  # settings.api_token_days where the caller has settings
# A script that asks for a token on every run would pile them up: past this, making one
# removes the least recently used.
MAX_PER_USER = 100
# "Last used" is written at most this often per token, so that using one stays a read.
TOUCH_EVERY = timedelta(minutes=5)


async def create_token(
    *, session: AsyncSession, user_id: int, name: str, days: int = DEFAULT_DAYS
) -> tuple[ApiToken, str]:
    now = utcnow()
    await session.execute(
        delete(ApiToken).where(ApiToken.user_id == user_id, ApiToken.expires_at <= now)
    )
    live = await session.scalar(select(func.count(ApiToken.id)).where(ApiToken.user_id == user_id))
    if live is not None and live >= MAX_PER_USER:
        stale = (
            select(ApiToken.id)
            .where(ApiToken.user_id == user_id)
            .order_by(func.coalesce(ApiToken.last_used_at, ApiToken.created_at), ApiToken.id)
            .limit(live - MAX_PER_USER + 1)
        )
        await session.execute(delete(ApiToken).where(ApiToken.id.in_(stale)))
    token = new_token()
    row = ApiToken(
        user_id=user_id,
        token_hash=token_digest(token),
        name=name,
        created_at=now,
        expires_at=now + timedelta(days=days),
    )
    session.add(row)
    await session.flush()
    return row, token


async def issue_token(
    *, session: AsyncSession, user: User, name: str = "API token", days: int = DEFAULT_DAYS
) -> str:
    _, token = await create_token(session=session, user_id=user.id, name=name, days=days)
    return token


async def token_owner(
    *, session: AsyncSession, token: str, now: datetime
) -> tuple[User, ApiToken] | None:
    """The active user a live token belongs to, with the token's row."""
    found = (
        await session.execute(
            select(User, ApiToken)
            .join(ApiToken)
            .where(
                ApiToken.token_hash == token_digest(token),
                ApiToken.expires_at > now,
                User.active.is_(True),
            )
        )
    ).one_or_none()
    return (found[0], found[1]) if found else None


def needs_touch(token: ApiToken, now: datetime) -> bool:
    return token.last_used_at is None or token.last_used_at < now - TOUCH_EVERY


async def touch_token(*, session: AsyncSession, token_id: int, now: datetime) -> None:
    await session.execute(
        update(ApiToken)
        .where(ApiToken.id == token_id)
        .where((ApiToken.last_used_at.is_(None)) | (ApiToken.last_used_at < now - TOUCH_EVERY))
        .values(last_used_at=now)
    )


async def list_tokens(*, session: AsyncSession, user_id: int) -> list[ApiToken]:
    """The user's live tokens, newest first."""
    return list(
        await session.scalars(
            select(ApiToken)
            .where(ApiToken.user_id == user_id, ApiToken.expires_at > utcnow())
            .order_by(ApiToken.created_at.desc(), ApiToken.id.desc())
        )
    )


async def revoke_token(*, session: AsyncSession, user_id: int, token_id: int) -> bool:
    """False when the user has no such token (someone else's is just as missing)."""
    result = await session.execute(
        delete(ApiToken).where(ApiToken.id == token_id, ApiToken.user_id == user_id)
    )
    return bool(getattr(result, "rowcount", 0))
