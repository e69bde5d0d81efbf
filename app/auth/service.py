"""Accounts: registration, log-in with throttling, API tokens. Never commits."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.auth.security import hash_password, new_token, token_digest, verify_password
from app.models import ApiToken, LoginFailure, User, utcnow


class UsernameTaken(Exception):
    pass


class InvalidCredentials(Exception):
    pass


class TooManyAttempts(Exception):
    def __init__(self, retry_after_s: int) -> None:
        self.retry_after_s = retry_after_s
        super().__init__(f"Too many failed log-ins; try again in {retry_after_s} seconds.")


async def create_user(
    *, session: AsyncSession, username: str, password: str, role: str = "student"
) -> User:
    existing = await session.scalar(select(User.id).where(User.username == username))
    if existing is not None:
        raise UsernameTaken(username)
    # Hashing is deliberately slow CPU work: keep it off the event loop.
    password_hash = await asyncio.to_thread(hash_password, password)
    user = User(username=username, password_hash=password_hash, role=role)
    session.add(user)
    try:
        async with session.begin_nested():
            await session.flush()
    except IntegrityError as exc:  # a concurrent sign-up took it between check and insert
        raise UsernameTaken(username) from exc
    return user


async def set_password(*, session: AsyncSession, user: User, password: str) -> None:
    user.password_hash = await asyncio.to_thread(hash_password, password)
    await session.flush()


async def get_user_by_username(*, session: AsyncSession, username: str) -> User | None:
    return await session.scalar(select(User).where(User.username == username))


async def _throttle(
    *, session: AsyncSession, username: str, client: str, limit: int, window_s: int
) -> None:
    since = utcnow() - timedelta(seconds=window_s)
    await session.execute(delete(LoginFailure).where(LoginFailure.created_at < since))
    by_user = select(func.count(), func.min(LoginFailure.created_at)).where(
        LoginFailure.username == username, LoginFailure.created_at >= since
    )
    by_client = select(func.count(), func.min(LoginFailure.created_at)).where(
        LoginFailure.client == client, LoginFailure.created_at >= since
    )
    for query, allowed in ((by_user, limit), (by_client, limit * 4)):
        count, oldest = (await session.execute(query)).one()
        if count >= allowed and oldest is not None:
            wait = int((oldest + timedelta(seconds=window_s) - utcnow()).total_seconds()) + 1
            raise TooManyAttempts(max(wait, 1))


async def authenticate(
    *,
    session: AsyncSession,
    username: str,
    password: str,
    client: str,
    limit: int,
    window_s: int,
) -> User:
    """The user, or InvalidCredentials (one message for unknown user and wrong password)."""
    username = username.strip().lower()[:64]
    await _throttle(
        session=session, username=username, client=client, limit=limit, window_s=window_s
    )
    user = await get_user_by_username(session=session, username=username)
    stored = user.password_hash if user else None
    if not await asyncio.to_thread(verify_password, password, stored) or user is None:
        session.add(LoginFailure(username=username, client=client[:64]))
        await session.flush()
        raise InvalidCredentials
    return user


async def issue_token(*, session: AsyncSession, user: User) -> str:
    token = new_token()
    session.add(ApiToken(user_id=user.id, token_hash=token_digest(token)))
    await session.flush()
    return token


async def user_for_token(*, session: AsyncSession, token: str) -> User | None:
    return await session.scalar(
        select(User).join(ApiToken).where(ApiToken.token_hash == token_digest(token))
    )
