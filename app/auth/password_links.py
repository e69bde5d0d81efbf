"""Accounts made for someone else (a teacher's roster import), and the one-time links with
which their owners choose a password. Never commits.

Such an account has no password until its link is used: its stored hash is not a hash at
all, so no password logs in to it. A link works once and for LINK_DAYS; making a new one
for the account ends the older ones. Only each link token's digest is kept."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.auth.security import hash_password_off_loop, new_token, token_digest
from app.auth.sessions import end_all_sessions
from app.models import Role, User, utcnow
from app.models.user import PasswordLink

LINK_DAYS = 14
# Not an Argon2 hash: verifying any password against it fails (app/auth/security.py).
NO_PASSWORD = "!"


def link_path(token: str) -> str:
    return f"/set-password/{token}"


async def create_invited(
    *, session: AsyncSession, username: str, display_name: str, email: str | None
) -> User:
    """A student account that has no password yet (the caller makes its link)."""
    user = User(
        username=username,
        display_name=display_name,
        email=email,
        password_hash=NO_PASSWORD,
        role=Role.STUDENT,
    )
    session.add(user)
    await session.flush()
    return user


def has_password(user: User) -> bool:
    return user.password_hash != NO_PASSWORD


async def issue_link(
    *, session: AsyncSession, user_id: int, now: datetime | None = None
) -> tuple[str, datetime]:
    """A new set-password link's token and its expiry; the account's older links end."""
    now = now or utcnow()
    await session.execute(delete(PasswordLink).where(PasswordLink.user_id == user_id))
    token = new_token()
    expires_at = now + timedelta(days=LINK_DAYS)
    session.add(
        PasswordLink(
            user_id=user_id, token_hash=token_digest(token), created_at=now, expires_at=expires_at
        )
    )
    await session.flush()
    return token, expires_at


async def link_owner(
    *, session: AsyncSession, token: str, now: datetime | None = None
) -> User | None:
    """The account a live (unused, unexpired) link is for, or None."""
    now = now or utcnow()
    return await session.scalar(
        select(User)
        .join(PasswordLink, PasswordLink.user_id == User.id)
        .where(
            PasswordLink.token_hash == token_digest(token),
            PasswordLink.used_at.is_(None),
            PasswordLink.expires_at > now,
            User.active,
        )
    )


async def use_link(*, session: AsyncSession, token: str, password: str) -> User | None:
    """Set the password through a live link, which then stops working (a second request
    with the same link finds it used: the update is conditional). None if not live."""
    now = utcnow()
    user = await link_owner(session=session, token=token, now=now)
    if user is None:
        return None
    used = await session.execute(
        update(PasswordLink)
        .where(PasswordLink.token_hash == token_digest(token), PasswordLink.used_at.is_(None))
        .values(used_at=now)
    )
    if getattr(used, "rowcount", 0) != 1:
        return None
    user.password_hash = await hash_password_off_loop(password)
    await session.flush()
    await end_all_sessions(session=session, user_id=user.id)
    await session.refresh(user)
    return user
