"""Browser sessions kept server-side, so that each can be ended.

The signed cookie carries the user id, the user's session version and a random session
key. A request is logged in only while the key's row exists (log-out deletes it), the
version matches the user's (log out everywhere, a new password, a new role or disabling
the account bump it), the account is active, and the session is younger than
SESSION_MAX_AGE_S."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.auth.security import new_token, token_digest
from app.models import ApiToken, LoginSession, User, utcnow


async def start_session(*, session: AsyncSession, user: User, max_age_s: int) -> str:
    """A new session for the user: the key for the cookie."""
    now = utcnow()
    await session.execute(
        delete(LoginSession).where(
            LoginSession.user_id == user.id,
            LoginSession.created_at < now - timedelta(seconds=max_age_s),
        )
    )
    key = new_token()
    session.add(LoginSession(user_id=user.id, key_hash=token_digest(key), created_at=now))
    await session.flush()
    return key


async def end_session(*, session: AsyncSession, key: str) -> None:
    await session.execute(delete(LoginSession).where(LoginSession.key_hash == token_digest(key)))


async def session_user(
    *,
    session: AsyncSession,
    user_id: int,
    version: int,
    key: str,
    max_age_s: int,
    now: datetime,
) -> User | None:
    return await session.scalar(
        select(User)
        .join(LoginSession)
        .where(
            User.id == user_id,
            User.session_version == version,
            User.active.is_(True),
            LoginSession.key_hash == token_digest(key),
            LoginSession.created_at >= now - timedelta(seconds=max_age_s),
        )
    )


async def end_all_sessions(*, session: AsyncSession, user_id: int) -> None:
    """Log the user out everywhere: every browser session ends and every API token is
    revoked (a token made by whoever had the account must not outlive this)."""
    await session.execute(
        update(User)
        .where(User.id == user_id)
        .values(session_version=User.session_version + 1)
        .execution_options(synchronize_session="fetch")
    )
    await session.execute(delete(LoginSession).where(LoginSession.user_id == user_id))
    await session.execute(delete(ApiToken).where(ApiToken.user_id == user_id))
    await session.flush()
