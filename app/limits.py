"""Rate limits that hold across web processes: counts kept in the database.

A limit allows `times` hits per subject (an address, a user id) in fixed windows of
`per_s` seconds. A hit is one upsert of the subject's row for the current window that
adds one and returns the count, so it is atomic on both back ends: on PostgreSQL the
upsert locks the row until the transaction ends (concurrent hits of one subject queue
there and each sees the one before), on SQLite writers hold the one write lock. Nothing
reads a count and writes later, so thirty hits at once cannot all pass a limit of ten.

`count` spends a hit in a short transaction of its own, committed at once, so that a
request that fails afterwards (a username taken, a wrong code) has still counted; it must
be called before the request's own unit of work writes (on SQLite there is one writer
connection). `take` spends one inside a transaction the caller owns, and `give_back`
returns it there (a join code that was right is not a guess).

What submissions are limited by (per minute, queued per student) is counted from the
submissions themselves: app/submissions/router.py."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import delete, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.config import Settings
from app.db import Database, insert_for
from app.i18n import N_
from app.models import RateCount, utcnow

# Rows of windows that ended this long ago are swept: long enough that no transaction
# still counts in them.
SWEEP_AFTER = timedelta(minutes=5)
KEY_LENGTH = 128


@dataclass(frozen=True)
class Limit:
    name: str
    times: int
    per_s: int
    # Said to whoever is refused; "%(seconds)s" is when to try again. Marked for the
    # catalogs: the API says it in English, pages in the reader's language.
    message: str

    def key(self, subject: str | int) -> str:
        return f"{self.name}:{subject}"[:KEY_LENGTH]

    def window(self, now: datetime) -> tuple[datetime, datetime]:
        start = math.floor(now.timestamp() / self.per_s) * self.per_s
        return datetime.fromtimestamp(start, UTC), datetime.fromtimestamp(start + self.per_s, UTC)


class LimitReached(Exception):
    def __init__(self, limit: Limit, retry_after_s: float) -> None:
        self.limit = limit
        self.retry_after_s = max(1, math.ceil(retry_after_s))
        super().__init__(limit.message % {"seconds": self.retry_after_s})


@dataclass(frozen=True)
class Taken:
    """One hit, as `give_back` needs it."""

    key: str
    window_start: datetime


def signups(settings: Settings) -> Limit:
    return Limit(
        "signup",
        settings.signups_per_address,
        settings.signup_window_s,
        N_("Too many sign-ups from this address; try again in %(seconds)s seconds."),
    )


def answers(settings: Settings) -> Limit:
    return Limit(
        "answer",
        settings.answers_per_minute,
        60,
        N_("Too many answers in a minute; try again in %(seconds)s seconds."),
    )


JOIN_GUESSES = N_("Too many join codes that were not right; try again in %(seconds)s seconds.")


def join_guesses_by_user(settings: Settings) -> Limit:
    return Limit(
        "join-user", settings.join_guesses_per_user, settings.join_guess_window_s, JOIN_GUESSES
    )


def join_guesses_by_address(settings: Settings) -> Limit:
    return Limit(
        "join-address",
        settings.join_guesses_per_address,
        settings.join_guess_window_s,
        JOIN_GUESSES,
    )


async def take(
    *, session: AsyncSession, limit: Limit, subject: str | int, now: datetime | None = None
) -> Taken:
    """Spend one hit of `limit` for `subject`, or raise LimitReached if it is one too many
    (the hit stays spent unless the caller rolls back). Never commits."""
    now = now or utcnow()
    start, end = limit.window(now)
    key = limit.key(subject)
    statement = (
        insert_for(session)(RateCount)
        .values(key=key, window_start=start, ends_at=end, hits=1)
        .on_conflict_do_update(
            index_elements=["key", "window_start"], set_={"hits": RateCount.hits + 1}
        )
        .returning(RateCount.hits)
    )
    hits = int(await session.scalar(statement) or 0)
    if hits == 1:
        # A new window: a good moment to forget old ones (rows no hit touches any more).
        await session.execute(delete(RateCount).where(RateCount.ends_at < now - SWEEP_AFTER))
    if hits > limit.times:
        raise LimitReached(limit, (end - now).total_seconds())
    return Taken(key, start)


async def give_back(*, session: AsyncSession, taken: Taken) -> None:
    """Undo one hit spent with `take` (the caller's transaction). Never commits."""
    await session.execute(
        update(RateCount)
        .where(
            RateCount.key == taken.key,
            RateCount.window_start == taken.window_start,
            RateCount.hits > 0,
        )
        .values(hits=RateCount.hits - 1)
    )


async def count(*, database: Database, limit: Limit, subject: str | int) -> None:
    """Spend one hit in a short transaction of its own, committed whether or not the
    request goes on to succeed; LimitReached if it is one too many (then nothing is kept).
    Call it before the request's unit of work writes anything."""
    async with database.writer() as session, session.begin():
        await take(session=session, limit=limit, subject=subject)
