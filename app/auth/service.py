"""Accounts: registration, log-in with throttling, changes that end sessions. Never commits.

Tokens live in app/auth/tokens.py, browser sessions in app/auth/sessions.py, the
throttle in app/auth/throttle.py."""

from __future__ import annotations

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app import limits
from app.auth import throttle
from app.auth.schemas import fold_username
from app.auth.security import hash_password_off_loop, verify_password_off_loop
from app.auth.sessions import end_all_sessions
from app.auth.throttle import LoginLimits
from app.auth.throttle import TooManyAttempts as TooManyAttempts
from app.auth.tokens import issue_token as issue_token
from app.config import Settings
from app.db import Database
from app.models import Role, User, utcnow


class UsernameTaken(Exception):
    pass


class InvalidCredentials(Exception):
    pass


class AccountDisabled(Exception):
    """The right password for an account an administrator disabled."""


async def create_user(
    *,
    session: AsyncSession,
    username: str,
    password: str,
    role: Role = Role.STUDENT,
    display_name: str | None = None,
) -> User:
    """A new account; without a display name it is shown by its username."""
    existing = await session.scalar(select(User.id).where(User.username == username))
    if existing is not None:
        raise UsernameTaken(username)
    password_hash = await hash_password_off_loop(password)
    user = User(
        username=username,
        password_hash=password_hash,
        role=role,
        display_name=display_name or username,
    )
    session.add(user)
    try:
        async with session.begin_nested():
            await session.flush()
    except IntegrityError as exc:  # a concurrent sign-up took it between check and insert
        raise UsernameTaken(username) from exc
    return user


async def sign_up(
    *,
    database: Database,
    session: AsyncSession,
    settings: Settings,
    client: str,
    username: str,
    password: str,
    display_name: str | None = None,
) -> User:
    """A student's own new account: the sign-up counts against the address's limit first
    (committed at once, so a taken username counts too), then the account is made.
    limits.LimitReached or UsernameTaken."""
    await limits.count(database=database, limit=limits.signups(settings), subject=client)
    return await create_user(
        session=session, username=username, password=password, display_name=display_name
    )


async def set_display_name(*, session: AsyncSession, user: User, display_name: str) -> None:
    """The name others see; sessions go on (nothing about access changed). `user` may be
    the caller's row from another session (app/auth/dependencies.py reads it apart)."""
    await session.execute(update(User).where(User.id == user.id).values(display_name=display_name))
    user.display_name = display_name


async def set_password(*, session: AsyncSession, user: User, password: str) -> None:
    """A new password ends every session and revokes every token: whoever knew the old
    one must be out."""
    await _change_and_end_sessions(
        session=session, user=user, password_hash=await hash_password_off_loop(password)
    )


async def set_role(*, session: AsyncSession, user: User, role: Role) -> None:
    await _change_and_end_sessions(session=session, user=user, role=role)


async def set_active(*, session: AsyncSession, user: User, active: bool) -> None:
    await _change_and_end_sessions(session=session, user=user, active=active)


async def _change_and_end_sessions(*, session: AsyncSession, user: User, **changes: object) -> None:
    """Apply `changes` to the account; if anything changed, every session and token ends."""
    if all(getattr(user, field) == value for field, value in changes.items()):
        return
    for field, value in changes.items():
        setattr(user, field, value)
    await session.flush()
    await end_all_sessions(session=session, user_id=user.id)
    await session.refresh(user)


async def get_user_by_username(*, session: AsyncSession, username: str) -> User | None:
    return await session.scalar(select(User).where(User.username == username))


async def authenticate(
    *,
    database: Database,
    session: AsyncSession,
    username: str,
    password: str,
    client: str,
    limits: LoginLimits,
) -> User:
    """The user, or InvalidCredentials (one message for unknown user and wrong password),
    AccountDisabled (right password, disabled account) or TooManyAttempts.

    The checks and the slow hash use a short read session of their own, and only the
    outcome is written in `session`: on SQLite a writer holds the database's one write
    lock, which must not wait on Argon2."""
    username = fold_username(username)[:64]
    client = client[:64]
    now = utcnow()
    async with throttle.one_of_few(username, limits):
        async with database.sessionmaker() as reader:
            await throttle.check(
                session=reader, username=username, client=client, limits=limits, now=now
            )
            user = await get_user_by_username(session=reader, username=username)
        stored = user.password_hash if user else None
        verified = await verify_password_off_loop(password, stored)
    if user is None or not verified:
        await throttle.record_failure(
            session=session, username=username, client=client, limits=limits, now=now
        )
        raise InvalidCredentials
    if not user.active:
        raise AccountDisabled
    await throttle.record_success(session=session, username=username, client=client, now=now)
    found = await session.get(User, user.id)
    if found is None:  # deleted while the hash ran
        raise InvalidCredentials
    return found
