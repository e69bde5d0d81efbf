"""Holding a request until a submission finishes (`?wait=`), in either grading mode."""

from __future__ import annotations

import asyncio
import time

from app.db import Database
from app.models import Submission
from app.submissions.dispatch import Notifier

POLL_S = 0.25


async def wait_for_submission(
    *, database: Database, notifier: Notifier | None, submission_id: int, seconds: float
) -> Submission | None:
    """The submission as soon as it is finished or `seconds` run out. Each look uses its
    own short session: a long transaction would keep showing SQLite's old snapshot."""
    deadline = time.monotonic() + seconds
    while True:
        async with database.sessionmaker() as session:
            submission = await session.get(Submission, submission_id)
        remaining = deadline - time.monotonic()
        if submission is None or submission.status in ("done", "error") or remaining <= 0:
            return submission
        if notifier is not None:
            await notifier.wait(submission_id, min(remaining, 2.0))
        else:
            await asyncio.sleep(min(remaining, POLL_S))
