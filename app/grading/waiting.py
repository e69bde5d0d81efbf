"""Holding a request until a submission finishes (`?wait=`), in either grading mode, and
how many such requests one user may hold at once."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
import time
from collections.abc import Iterator
from types import FrameType

from fastapi import FastAPI

from app.db import Database
from app.grading.dispatch import Finished, Notifier
from app.models import Submission, SubmissionStatus

POLL_S = 0.25
# How long a wait is held at least before a newer one of its user may end it (LongPolls).
MIN_HELD_S = 1.0


class _Held(asyncio.Event):
    """One held wait: set when it is to end. `since`: when it began (loop time)."""

    def __init__(self, since: float) -> None:
        super().__init__()
        self.since = since


class LongPolls:
    """The `?wait=` requests each user holds in this process, at most `per_user` at once.
    When one more starts the oldest is cut short: it answers with the submission as it
    stands. So the newest always wins (a reloaded page is never refused), and one user
    cannot hold hundreds of requests open, with their wake-ups, to slow everyone else.

    A wait is cut short only once it has been held `MIN_HELD_S`: a client that waits on
    more submissions than the cap and polls again as soon as it is answered would otherwise
    cut its own waits in a loop as fast as the server answers, spending the CPU that grades
    everyone else's code."""

    def __init__(self) -> None:
        self._held: dict[int, list[_Held]] = {}
        self.stopping = False  # set once the process is told to stop: waits end at once

    @contextlib.contextmanager
    def hold(self, user_id: int, per_user: int) -> Iterator[asyncio.Event]:
        """An event that is set when this wait is to end at once."""
        loop = asyncio.get_running_loop()
        cut_short = _Held(loop.time())
        if self.stopping:
            cut_short.set()
        held = self._held.setdefault(user_id, [])
        held.append(cut_short)
        while len(held) > per_user:
            oldest = held.pop(0)
            loop.call_at(oldest.since + MIN_HELD_S, oldest.set)
        try:
            yield cut_short
        finally:
            if cut_short in held:
                held.remove(cut_short)
            if not held and self._held.get(user_id) is held:
                del self._held[user_id]

    def held(self, user_id: int) -> int:
        return len(self._held.get(user_id, ()))

    def cut_all(self) -> None:
        """Every wait ends at once (the process is stopping), and so do those begun after."""
        self.stopping = True
        for held in self._held.values():
            for cut_short in held:
                cut_short.set()


def long_polls(app: FastAPI) -> LongPolls:
    """The app's LongPolls, made on first use."""
    polls: LongPolls | None = getattr(app.state, "long_polls", None)
    if polls is None:
        polls = app.state.long_polls = LongPolls()
    return polls


async def _until_set(events: list[asyncio.Event], seconds: float) -> None:
    """Until one of `events` is set or `seconds` run out."""
    if not events:
        await asyncio.sleep(seconds)
        return
    waits = [asyncio.ensure_future(event.wait()) for event in events]
    try:
        await asyncio.wait(waits, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for wait in waits:
            wait.cancel()


async def wait_for_submission(
    *,
    database: Database,
    notifier: Notifier | None,
    submission_id: int,
    seconds: float,
    event: Finished | None = None,
    cut_short: asyncio.Event | None = None,
) -> Submission | None:
    """The submission as soon as it is finished, `seconds` run out or `cut_short` is set
    (LongPolls). Each look uses its own short session: a long transaction would keep
    showing SQLite's old snapshot.

    `event`: taken from the notifier by a caller *before* its own look found the submission
    unfinished; the first wait then needs no look of its own. A finish that hands over the
    finished row (the embedded grader does) needs no look either."""
    deadline = time.monotonic() + seconds
    looked = event is not None  # the caller's look counts as the first
    while True:
        if not looked:
            event = notifier.event_for(submission_id) if notifier else None
            async with database.sessionmaker() as session:
                submission = await session.get(Submission, submission_id)
            remaining = deadline - time.monotonic()
            if (
                submission is None
                or submission.status in SubmissionStatus.FINISHED
                or remaining <= 0
                or (cut_short is not None and cut_short.is_set())
            ):
                return submission
        looked = False
        remaining = deadline - time.monotonic()
        stop = [cut_short] if cut_short is not None else []
        if event is None:
            await _until_set(stop, min(remaining, POLL_S))
            continue
        # Bounded, so a finish recorded by another process is still seen by polling.
        await _until_set([event, *stop], min(remaining, 1.0))
        if event.submission is not None:
            return event.submission


@contextlib.contextmanager
def end_waits_on_stop(app: FastAPI) -> Iterator[None]:
    """While the app runs: on SIGTERM or SIGINT, its long polls answer at once with the
    submission as it stands (the page polls again and reaches a process that stays), so a
    stopping process is not held for their `wait`, up to 30 s. The handler the server
    installed still runs after (it stops taking connections and finishes the requests it
    has). In the main thread only, where signal handlers live; restored on the way out."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    loop = asyncio.get_running_loop()
    polls = long_polls(app)
    previous = {number: signal.getsignal(number) for number in (signal.SIGTERM, signal.SIGINT)}

    def handler(signum: int, frame: FrameType | None) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closed: nothing waits
            loop.call_soon_threadsafe(polls.cut_all)
        before = previous[signal.Signals(signum)]
        if callable(before):
            before(signum, frame)
        elif before == signal.SIG_DFL:
            signal.signal(signum, signal.SIG_DFL)
            signal.raise_signal(signum)

    for number in previous:
        signal.signal(number, handler)
    try:
        yield
    finally:
        for number, before in previous.items():
            signal.signal(number, before)
