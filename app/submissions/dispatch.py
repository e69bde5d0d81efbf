"""Embedded grading: a bounded in-process queue feeding the grader from worker tasks.

The database row stays the source of truth: a submission is claimed (status `running`,
attempts + 1, a lease) before it is graded, the outcome is recorded once, and whatever a
previous process left queued or running is graded again at start-up.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from typing import TYPE_CHECKING, Protocol

from app.db import Database
from app.models import Exercise
from app.submissions import service

if TYPE_CHECKING:
    from grader import Job, Limits, Result, Run

log = logging.getLogger(__name__)


class GraderLike(Protocol):
    def start(self) -> None: ...
    def grade(self, job: Job) -> Result: ...
    def run(
        self,
        code: str,
        device: str = "cpu",
        limits: Limits | None = None,
        setup: str | None = None,
    ) -> Run: ...
    def close(self) -> None: ...


class Notifier:
    """Wakes requests that wait (`?wait=`) for a submission to finish. A waiter takes its
    event *before* it looks at the row, so a finish in between is never missed."""

    def __init__(self) -> None:
        # Weak: an event lives as long as someone waits on it, so a waiter that found the
        # submission finished already leaves nothing behind.
        self._events: weakref.WeakValueDictionary[int, asyncio.Event] = (
            weakref.WeakValueDictionary()
        )

    def event_for(self, submission_id: int) -> asyncio.Event:
        event = self._events.get(submission_id)
        if event is None:
            event = self._events[submission_id] = asyncio.Event()
        return event

    def __len__(self) -> int:
        return len(self._events)

    def finished(self, submission_id: int) -> None:
        if event := self._events.pop(submission_id, None):
            event.set()


class EmbeddedGrading:
    def __init__(self, *, database: Database, grader: GraderLike, concurrency: int) -> None:
        self.database = database
        self.grader = grader
        self.concurrency = concurrency
        # Unbounded here: admission is bounded by the number of queued rows (see the router).
        self.queue: asyncio.Queue[int] = asyncio.Queue()
        self.notifier = Notifier()
        self._tasks: list[asyncio.Task[None]] = []
        self._ready = asyncio.Event()
        self.lease_s = 120.0
        self._exercises: dict[str, Exercise] = {}

    async def start(self) -> None:
        self._tasks.append(asyncio.create_task(self._start_grader()))
        self._tasks += [asyncio.create_task(self._work()) for _ in range(self.concurrency)]
        async with self.database.sessionmaker() as session:
            for submission_id in await service.unfinished_ids(session=session):
                self.queue.put_nowait(submission_id)

    async def _start_grader(self) -> None:
        # Warm interpreters take a few seconds; the web app answers meanwhile.
        try:
            await asyncio.to_thread(self.grader.start)
        finally:
            self._ready.set()

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await asyncio.to_thread(self.grader.close)

    async def submitted(self, submission_id: int) -> None:
        self.queue.put_nowait(submission_id)

    async def ready(self) -> bool:
        return self._ready.is_set() and "cpu" not in getattr(self.grader, "problems", {})

    async def workers(self) -> dict[str, int]:
        if not self._ready.is_set():
            return {}
        return {device: 1 for device in getattr(self.grader, "devices", ["cpu"])}

    async def _work(self) -> None:
        await self._ready.wait()
        while True:
            submission_id = await self.queue.get()
            try:
                await self._grade(submission_id)
            except Exception:
                log.exception("grading submission %s failed", submission_id)
            finally:
                self.queue.task_done()

    async def _grade(self, submission_id: int) -> None:
        from app.submissions.jobs import job_for  # the grader package, on demand

        # Each pass claims the row again, so a platform fault is retried at most
        # service.MAX_ATTEMPTS times in all, and a row finished elsewhere is left alone.
        while True:
            async with self.database.writer() as session, session.begin():
                submission = await service.claim(
                    session=session, submission_id=submission_id, lease_s=self.lease_s
                )
                if submission is None:
                    break
                exercise = self._exercises.get(submission.exercise_id)
                if exercise is None:
                    exercise = await session.get_one(Exercise, submission.exercise_id)
                    # Content only changes at start-up, so a process may keep what it read.
                    self._exercises[exercise.id] = exercise
                job = job_for(submission, exercise)
                trying_out = submission.mode == "run"
            if trying_out:
                runs = [
                    await asyncio.to_thread(self.grader.run, job.code, "cpu", job.limits, job.setup)
                ]
            else:
                runs = (await asyncio.to_thread(self.grader.grade, job)).runs
            async with self.database.writer() as session, session.begin():
                outcome = await service.record_runs(
                    session=session,
                    submission_id=submission_id,
                    runs=[run.model_dump() for run in runs],
                )
            if outcome != "retry":
                break
            log.warning("submission %s hit a platform fault; retrying", submission_id)
        self.notifier.finished(submission_id)
