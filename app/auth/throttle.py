"""Log-in throttling, kept in the database so that it holds across processes.

Guessing is slowed per (username, address): a few failures are free, then each further
try waits, the wait doubling up to a cap. So a guesser elsewhere can never lock an account
out (the right password from an address that did not fail always gets in), and one
address behind a NAT never locks out the others behind it. An address that fails for many
different usernames (password spraying) is refused as a whole. Successful log-ins are
capped too, per user and per address, and only a few of one user's log-ins are hashed at
once in a process: each costs an Argon2 hash, and one user's burst must not starve others.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.config import Settings
from app.models import LoginFailure, LoginSuccess

SUCCESS_WINDOW = timedelta(minutes=1)


class Refusal(StrEnum):
    FAILURES = "failures"  # this username from this address, or this address, failed often
    LOG_INS = "log_ins"  # too many log-ins (successful, or at once)


class TooManyAttempts(Exception):
    def __init__(self, retry_after_s: float, reason: Refusal = Refusal.FAILURES) -> None:
        self.retry_after_s = max(1, math.ceil(retry_after_s))
        self.reason = reason
        what = "failed log-ins" if reason is Refusal.FAILURES else "log-ins"
        super().__init__(f"Too many {what}; try again in {self.retry_after_s} seconds.")


@dataclass(frozen=True)
class LoginLimits:
    free_failures: int
    backoff_base_s: int
    backoff_max_s: int
    failure_window_s: int
    address_usernames: int
    successes_per_user: int
    successes_per_address: int
    concurrent_per_user: int

    @classmethod
    def from_settings(cls, settings: Settings) -> LoginLimits:
        return cls(
            free_failures=settings.login_failure_limit,
            backoff_base_s=settings.login_backoff_base_s,
            backoff_max_s=settings.login_backoff_max_s,
            failure_window_s=settings.login_failure_window_s,
            address_usernames=settings.login_address_failure_limit,
            successes_per_user=settings.login_successes_per_user_per_minute,
            successes_per_address=settings.login_successes_per_address_per_minute,
            concurrent_per_user=settings.login_concurrency_per_user,
        )

    def backoff(self, failures: int) -> timedelta:
        """How long the next try waits after `failures` recent failures of one pair."""
        if failures < self.free_failures:
            return timedelta(0)
        doublings = min(failures - self.free_failures, 32)
        return timedelta(seconds=min(self.backoff_max_s, self.backoff_base_s * 2**doublings))


_in_flight: Counter[str] = Counter()


@asynccontextmanager
async def one_of_few(username: str, limits: LoginLimits) -> AsyncIterator[None]:
    """Hold one of the username's few log-in slots in this process, or refuse at once."""
    if _in_flight[username] >= limits.concurrent_per_user:
        raise TooManyAttempts(1, Refusal.LOG_INS)
    _in_flight[username] += 1
    try:
        yield
    finally:
        _in_flight[username] -= 1
        if not _in_flight[username]:
            del _in_flight[username]


async def check(
    *, session: AsyncSession, username: str, client: str, limits: LoginLimits, now: datetime
) -> None:
    """Raise TooManyAttempts if this try must wait; reads only."""
    since = now - timedelta(seconds=limits.failure_window_s)
    count, last = (
        await session.execute(
            select(func.count(), func.max(LoginFailure.created_at)).where(
                LoginFailure.username == username,
                LoginFailure.client == client,
                LoginFailure.created_at >= since,
            )
        )
    ).one()
    wait = limits.backoff(count)
    if last is not None and wait and last + wait > now:
        raise TooManyAttempts((last + wait - now).total_seconds())

    latest_by_username = (
        await session.scalars(
            select(func.max(LoginFailure.created_at))
            .where(LoginFailure.client == client, LoginFailure.created_at >= since)
            .group_by(LoginFailure.username)
        )
    ).all()
    if len(latest_by_username) >= limits.address_usernames:
        # Allowed again once enough usernames' latest failures have left the window.
        over = len(latest_by_username) - limits.address_usernames
        freed_at = sorted(latest_by_username)[over] + timedelta(seconds=limits.failure_window_s)
        raise TooManyAttempts((freed_at - now).total_seconds())

    minute_ago = now - SUCCESS_WINDOW
    for column, value, allowed in (
        (LoginSuccess.username, username, limits.successes_per_user),
        (LoginSuccess.client, client, limits.successes_per_address),
    ):
        count, oldest = (
            await session.execute(
                select(func.count(), func.min(LoginSuccess.created_at)).where(
                    column == value, LoginSuccess.created_at >= minute_ago
                )
            )
        ).one()
        if count >= allowed and oldest is not None:
            raise TooManyAttempts((oldest + SUCCESS_WINDOW - now).total_seconds(), Refusal.LOG_INS)


async def record_failure(
    *, session: AsyncSession, username: str, client: str, limits: LoginLimits, now: datetime
) -> None:
    since = now - timedelta(seconds=limits.failure_window_s)
    await session.execute(delete(LoginFailure).where(LoginFailure.created_at < since))
    session.add(LoginFailure(username=username, client=client, created_at=now))
    await session.flush()


async def record_success(
    *, session: AsyncSession, username: str, client: str, now: datetime
) -> None:
    """Count the log-in, and forget the pair's failures: whoever knew the password is in."""
    await session.execute(
        delete(LoginFailure).where(LoginFailure.username == username, LoginFailure.client == client)
    )
    await session.execute(
        delete(LoginSuccess).where(LoginSuccess.created_at < now - SUCCESS_WINDOW)
    )
    session.add(LoginSuccess(username=username, client=client, created_at=now))
    await session.flush()
