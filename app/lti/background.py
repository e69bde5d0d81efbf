"""The LTI work of a web process in the background: the outbox of scores delivered every
POLL_S seconds (app/lti/outbox.py), and every course roster synced once a day
(service.ROSTER_SYNC_EVERY), looked for every ROSTER_CHECK_S seconds, so that learners of
a course appear in its class before they launch even if the teacher never presses the
button."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from datetime import datetime

import httpx

from app.db import Database
from app.lti import outbox, service
from app.lti.tokens import REQUEST_TIMEOUT_S
from app.models import utcnow

log = logging.getLogger(__name__)

POLL_S = 5.0
ROSTER_CHECK_S = 600.0


async def sync_due_rosters(*, database: Database, now: datetime | None = None) -> int:
    """Each due roster synced, each in its own transaction; one that fails is logged and
    tried again at the next check. Returns how many were synced."""
    now = now or utcnow()
    async with database.sessionmaker() as session:
        due = await service.rosters_due(session=session, now=now)
    synced = 0
    if not due:
        return synced
    async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT_S) as client:
        for class_id in due:
            try:
                async with database.writer() as session, session.begin():
                    await service.sync_roster(
                        session=session, class_id=class_id, client=client, now=now
                    )
            except service.RosterUnavailable as refusal:
                log.info("LTI roster of class %s not synced: %s", class_id, refusal)
                continue
            synced += 1
    return synced


class Background:
    def __init__(self, database: Database) -> None:
        self.database = database
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.task = asyncio.create_task(self._run(), name="lti-background")

    async def _run(self) -> None:
        rosters_checked = 0.0
        while True:
            try:
                await outbox.deliver_due(database=self.database)
                if time.monotonic() - rosters_checked >= ROSTER_CHECK_S:
                    rosters_checked = time.monotonic()
                    await sync_due_rosters(database=self.database)
            except Exception:
                log.exception("LTI background work failed; trying again")
            await asyncio.sleep(POLL_S)

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
