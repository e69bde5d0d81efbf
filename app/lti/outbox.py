"""Delivering the outbox of scores (lti_scores) to the platforms' line items: oldest first,
each platform's queue in order (a score that cannot be delivered now holds back the ones
after it, so a platform never gets a newer score before an older one), again and again
with growing pauses until the platform takes it. The outbox is in the database, so a
restart loses nothing; sending a score twice is harmless (AGS keeps the one with the
latest timestamp, and each score carries the time its progress changed).

Several processes may deliver: a score is claimed for CLAIM before it is sent, and a
platform whose oldest undelivered score another process holds is left to that process."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import urlsplit, urlunsplit

import httpx
from sqlalchemy import or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import Database
from app.lti import claims, keys
from app.lti.tokens import (
    REQUEST_TIMEOUT_S,
    AccessTokens,
    ServiceRefused,
    ServiceUnavailable,
    access_tokens,
    transient,
)
from app.models import LtiPlatform, utcnow
from app.models.lti import LtiLineItem, LtiScore

log = logging.getLogger(__name__)

SCORE_MEDIA_TYPE = "application/vnd.ims.lis.v1.score+json"
CLAIM = timedelta(seconds=60)
FIRST_PAUSE = timedelta(seconds=10)
LONGEST_PAUSE = timedelta(minutes=5)
BATCH = 200


def pause_after(attempts: int) -> timedelta:
    """10 s after the first failure, doubling, never more than 5 minutes: an LMS down for
    an hour is tried about a dozen times and gets every score within 5 minutes of coming
    back."""
    return min(FIRST_PAUSE * 2 ** max(0, attempts - 1), LONGEST_PAUSE)


@dataclass
class Delivered:
    sent: int = 0
    refused: int = 0
    postponed: int = 0


def scores_url(line_item_url: str) -> str:
    """The line item's scores endpoint: its path with /scores appended, query kept."""
    parts = urlsplit(line_item_url)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/scores"))


def score_body(score: LtiScore) -> dict[str, object]:
    return {
        "userId": score.subject,
        "scoreGiven": score.score_given,
        "scoreMaximum": 1,
        "activityProgress": score.activity_progress,
        "gradingProgress": score.grading_progress,
        "timestamp": score.timestamp.isoformat(timespec="milliseconds"),
    }


async def deliver_due(
    *,
    database: Database,
    now: datetime | None = None,
    tokens: AccessTokens = access_tokens,
) -> Delivered:
    """One round: every platform's queue, in order, as far as it goes now."""
    now = now or utcnow()
    waiting = (LtiScore.sent_at.is_(None)) & (LtiScore.failed_at.is_(None))
    queues: dict[int, list[int]] = {}
    async with database.sessionmaker() as session:
        platform_ids = await session.scalars(
            select(LtiLineItem.platform_id)
            .join(LtiScore, LtiScore.line_item_id == LtiLineItem.id)
            .where(waiting)
            .distinct()
        )
        for platform_id in list(platform_ids):
            # Each platform's own oldest: one platform's long queue delays no other.
            queues[platform_id] = list(
                await session.scalars(
                    select(LtiScore.id)
                    .join(LtiLineItem, LtiLineItem.id == LtiScore.line_item_id)
                    .where(waiting, LtiLineItem.platform_id == platform_id)
                    .order_by(LtiScore.id)
                    .limit(BATCH)
                )
            )
    done = Delivered()
    if not queues:  # the usual round: an HTTP client (its TLS context) costs real CPU
        return done
    async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT_S) as client:
        for platform_id, score_ids in queues.items():
            await _deliver_queue(database, platform_id, score_ids, now, tokens, client, done)
    return done


async def _deliver_queue(
    database: Database,
    platform_id: int,
    score_ids: list[int],
    now: datetime,
    tokens: AccessTokens,
    client: httpx.AsyncClient,
    done: Delivered,
) -> None:
    async with database.writer() as session, session.begin():
        await keys.ensure_key(session=session)  # signs the token request
    for score_id in score_ids:
        if not await _claim(database, score_id, now):
            return  # waiting for its next try, or another process is sending it
        # No transaction stays open while the platform answers.
        async with database.sessionmaker() as session:
            score = await session.get_one(LtiScore, score_id)
            line_item = await session.get_one(LtiLineItem, score.line_item_id)
            platform = await session.get_one(LtiPlatform, platform_id)
            outcome: Exception | None = None
            try:
                await _send(session, platform, line_item, score, tokens, client)
            except (ServiceUnavailable, ServiceRefused) as exc:
                outcome = exc
        async with database.writer() as session, session.begin():
            values: dict[str, object] = {"claimed_until": None, "attempts": score.attempts + 1}
            if isinstance(outcome, ServiceUnavailable):
                values |= {
                    "next_attempt_at": now + pause_after(score.attempts + 1),
                    "last_error": str(outcome)[:300],
                }
                log.info("LTI score %s postponed: %s", score_id, outcome)
            elif isinstance(outcome, ServiceRefused):
                values |= {"failed_at": now, "last_error": str(outcome)[:300]}
                log.warning("LTI score %s refused by the platform: %s", score_id, outcome)
            else:
                values |= {"sent_at": now, "last_error": None}
            await session.execute(update(LtiScore).where(LtiScore.id == score_id).values(values))
        if isinstance(outcome, ServiceUnavailable):
            done.postponed += 1
            return  # the scores after it wait for it
        if isinstance(outcome, ServiceRefused):
            done.refused += 1
        else:
            done.sent += 1


async def _claim(database: Database, score_id: int, now: datetime) -> bool:
    async with database.writer() as session, session.begin():
        claimed = await session.execute(
            update(LtiScore)
            .where(
                LtiScore.id == score_id,
                LtiScore.sent_at.is_(None),
                LtiScore.failed_at.is_(None),
                LtiScore.next_attempt_at <= now,
                or_(LtiScore.claimed_until.is_(None), LtiScore.claimed_until < now),
            )
            .values(claimed_until=now + CLAIM)
            .execution_options(synchronize_session=False)
        )
        return getattr(claimed, "rowcount", 0) == 1


async def _send(
    session: AsyncSession,
    platform: LtiPlatform,
    line_item: LtiLineItem,
    score: LtiScore,
    tokens: AccessTokens,
    client: httpx.AsyncClient,
) -> None:
    for fresh_token in (False, True):
        token = await tokens.get(
            session=session, platform=platform, scope=claims.SCORE_SCOPE, client=client
        )
        try:
            answer = await client.post(
                scores_url(line_item.url),
                json=score_body(score),
                headers={"Authorization": f"Bearer {token}", "Content-Type": SCORE_MEDIA_TYPE},
            )
        except httpx.HTTPError as exc:
            raise ServiceUnavailable(f"scores URL: {type(exc).__name__}") from exc
        if answer.status_code == 401 and not fresh_token:
            tokens.forget(platform_id=platform.id, scope=claims.SCORE_SCOPE)
            continue
        # 409: the platform holds a later score for this learner already.
        if answer.is_success or answer.status_code == 409:
            return
        if transient(answer.status_code):
            raise ServiceUnavailable(f"scores URL answered {answer.status_code}")
        raise ServiceRefused(f"scores URL answered {answer.status_code}: {answer.text[:200]}")
