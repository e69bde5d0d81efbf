"""The first administrator of a fresh install, made in the browser. Never commits.

While no administrator exists, each start of the web app makes a one-time setup token and
prints it in the server's log (only its digest is stored). Whoever can read that log signs
up or logs in, opens /setup and enters it: that account becomes the administrator, and
every setup token is void from then on (an administrator made on the command line voids
them too). A token expires after SETUP_TOKEN_HOURS; restarting prints a new one."""

from __future__ import annotations

import logging
import secrets
from datetime import datetime, timedelta

from sqlalchemy import delete, exists, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from app.auth import service
from app.auth.security import token_digest
from app.config import Settings
from app.db import Database
from app.models import Role, SetupToken, User, utcnow

log = logging.getLogger("app")

SETUP_TOKEN_HOURS = 24
# Read off a terminal and typed: no 0/O, no 1/I/L. Five groups of five: about 124 bits.
ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
GROUPS, GROUP_LENGTH = 5, 5


class SetupRefused(Exception):
    """Why the token was not taken: wrong or expired, or there is an administrator."""


class AlreadySetUp(SetupRefused):
    pass


class WrongToken(SetupRefused):
    pass


def new_setup_token() -> str:
    return "-".join(
        "".join(secrets.choice(ALPHABET) for _ in range(GROUP_LENGTH)) for _ in range(GROUPS)
    )


def normalize_token(text: str) -> str:
    """As printed, whatever case, spaces or dashes were typed (or pasted with it)."""
    letters = "".join(ch for ch in text.upper() if ch.isalnum())[: GROUPS * GROUP_LENGTH * 2]
    return "-".join(letters[i : i + GROUP_LENGTH] for i in range(0, len(letters), GROUP_LENGTH))


async def admin_exists(*, session: AsyncSession) -> bool:
    return bool(await session.scalar(select(exists().where(User.role == Role.ADMIN))))


async def issue_setup_token(
    *, session: AsyncSession, now: datetime | None = None, hours: int = SETUP_TOKEN_HOURS
) -> str | None:
    """A new setup token (returned once, stored as its digest), or None when there is an
    administrator already (then any token left is deleted)."""
    now = now or utcnow()
    if await admin_exists(session=session):
        await session.execute(delete(SetupToken))
        return None
    await session.execute(delete(SetupToken).where(SetupToken.expires_at <= now))
    token = new_setup_token()
    session.add(
        SetupToken(
            token_hash=token_digest(token),
            created_at=now,
            expires_at=now + timedelta(hours=hours),
        )
    )
    await session.flush()
    return token


async def announce_setup_token(database: Database, settings: Settings) -> str | None:
    """At start-up: while no administrator exists, a new setup token in the log."""
    async with database.writer() as session, session.begin():
        token = await issue_setup_token(session=session)
    if token is not None:
        log.warning(
            "No administrator yet. Sign up or log in at %s/setup and enter this one-time "
            "setup token to become the administrator: %s (valid for %s hours; restarting "
            "prints a new one)",
            settings.effective_public_base_url,
            token,
            SETUP_TOKEN_HOURS,
        )
    return token


async def become_admin(
    *, session: AsyncSession, user: User, token: str, now: datetime | None = None
) -> None:
    """Make `user` the administrator with a live setup token, and void every token.
    AlreadySetUp or WrongToken otherwise. The user's sessions and API tokens end (a new
    role does that); the caller logs this browser in again."""
    now = now or utcnow()
    if await admin_exists(session=session):
        raise AlreadySetUp
    digest = token_digest(normalize_token(token))
    # One statement takes every token, only if the given one is among the live ones: two
    # people racing with two tokens cannot both get here (the second deletes nothing).
    given = aliased(SetupToken)
    taken = (
        await session.scalars(
            delete(SetupToken)
            .where(exists().where(given.token_hash == digest, given.expires_at > now))
            .returning(SetupToken.token_hash)
        )
    ).all()
    if digest not in taken:
        raise WrongToken
    await service.set_role(session=session, user=user, role=Role.ADMIN)
