"""Embedded grading: an in-process queue feeding the grader from worker tasks.

The database row stays the source of truth: a submission is claimed (status `running`,
attempts + 1, a lease) before it is graded, the outcome is recorded once, and whatever a
previous process left queued or running is graded again at start-up. Only submissions
handed to the graders are put on the queue, at most a few per student (fairness.py); when
one finishes, the same transaction releases the student's next, which joins the back of
the queue, so students take turns.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from typing import TYPE_CHECKING, Protocol

from sqlalchemy.ext.asyncio import AsyncSession

from app.db import Database
from app.grading import fairness, recording
from app.metrics import MeasuredQueue
from app.models import Exercise, Submission, SubmissionMode, SubmissionStatus
from app.submissions.regrade import Regrader

if TYPE_CHECKING:
    from grader import Job, Limits, Result, Run

log = logging.getLogger(__name__)
GRADING_FAILED = "Grading failed inside the platform; this does not count against you."
# Not a submission id: wakes a worker to look for background work (regrades).
WAKE = 0


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


class Finished(asyncio.Event):
    """Set when the submission is finished. `submission`: the finished row, when the one
    who recorded it had it at hand (the waiter then need not read it again)."""

    submission: Submission | None = None


class Notifier:
    """Wakes requests that wait (`?wait=`) for a submission to finish. A waiter takes its
    event *before* it looks at the row, so a finish in between is never missed."""

    def __init__(self) -> None:
        # Weak: an event lives as long as someone waits on it, so a waiter that found the
        # submission finished already leaves nothing behind.
        self._events: weakref.WeakValueDictionary[int, Finished] = weakref.WeakValueDictionary()

    def event_for(self, submission_id: int) -> Finished:
        event = self._events.get(submission_id)
        if event is None:
            event = self._events[submission_id] = Finished()
        return event

    def __len__(self) -> int:
        return len(self._events)

    def finished(self, submission_id: int, submission: Submission | None = None) -> None:
        if event := self._events.pop(submission_id, None):
            event.submission = submission
            event.set()


class EmbeddedGrading:
    def __init__(
        self,
        *,
        database: Database,
        grader: GraderLike,
        concurrency: int,
        in_flight_per_student: int = 1,
    ) -> None:
        self.database = database
        self.grader = grader
        self.concurrency = concurrency
        self.in_flight_per_student = in_flight_per_student
        # Unbounded here: admission is bounded by the number of queued rows (see the router).
        self.queue: asyncio.Queue[int] = MeasuredQueue()
        self.notifier = Notifier()
        self._tasks: list[asyncio.Task[None]] = []
        self._ready = asyncio.Event()
        self.lease_s = 120.0
        self._exercises: dict[str, Exercise] = {}
        # Regrades take a worker only while no live submission waits, and leave a sandbox
        # free (where there are several) for the next live one.
        self.regrader = Regrader(database=database, grader=grader)
        sandboxes = getattr(getattr(grader, "config", None), "workers", concurrency)
        self.background_limit = max(1, min(concurrency, sandboxes) - 1)
        self._background_busy = 0

    async def start(self) -> None:
        self._tasks.append(asyncio.create_task(self._start_grader()))
        self._tasks += [asyncio.create_task(self._work()) for _ in range(self.concurrency)]
        async with self.database.writer() as session, session.begin():
            unfinished = await recording.unfinished_ids(session=session)
            # Those left waiting when the limit was lower, or by a process that died.
            released = await fairness.release_next(
                session=session, limit=self.in_flight_per_student
            )
        for submission_id in unfinished + released:
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

    async def shared_queue_depth(self) -> None:
        return None  # each process's queue publishes its own length

    def wake_background(self) -> None:
        """A regrade was requested: idle workers look for it."""
        self.regrader.wake()
        for _ in range(self.concurrency):
            self.queue.put_nowait(WAKE)

    async def _background(self) -> bool:
        """One regrade job, if one waits and the background may take one more worker."""
        if self._background_busy >= self.background_limit:
            return False
        self._background_busy += 1
        try:
            return await self.regrader.step()
        finally:
            self._background_busy -= 1

    async def _work(self) -> None:
        await self._ready.wait()
        while True:
            if self.queue.empty() and await self._background():
                continue
            submission_id = await self.queue.get()
            if submission_id == WAKE:
                self.queue.task_done()
                continue
            try:
                await self._grade(submission_id)
            except Exception:
                log.exception("grading submission %s failed", submission_id)
                await self._give_up(submission_id)
            finally:
                self.queue.task_done()

    async def _give_up(self, submission_id: int) -> None:
        """End a submission whose grading raised as a platform error: left running, it
        would hold up the student's next ones until a restart."""
        try:
            async with self.database.writer() as session, session.begin():
                await recording.fail(
                    session=session, submission_id=submission_id, detail=GRADING_FAILED
                )
                released = await self._release_after(session, submission_id)
        except Exception:
            log.exception("could not end submission %s as an error", submission_id)
            return
        self.notifier.finished(submission_id)
        for next_id in released:
            self.queue.put_nowait(next_id)

    async def _release_after(self, session: AsyncSession, submission_id: int) -> list[int]:
        """The student's next waiting submissions, now that this one has finished."""
        return await fairness.release_next(
            session=session, limit=self.in_flight_per_student, after=submission_id
        )

    async def _grade(self, submission_id: int) -> None:
        from app.grading.jobs import job_for  # the grader package, on demand

        # Each pass claims the row again, so a platform fault is retried at most
        # recording.MAX_ATTEMPTS times in all, and a row finished elsewhere is left alone.
        finished: Submission | None = None
        released: list[int] = []
        while True:
            async with self.database.writer() as session, session.begin():
                submission = await recording.claim(
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
                trying_out = submission.mode == SubmissionMode.RUN
            if trying_out:
                runs = [
                    await asyncio.to_thread(self.grader.run, job.code, "cpu", job.limits, job.setup)
                ]
            else:
                runs = (await asyncio.to_thread(self.grader.grade, job)).runs
            async with self.database.writer() as session, session.begin():
                # Attached here, the claimed row is the very object record_runs loads (the
                # session's identity map), so it ends up holding the finished values: the
                # waiters get it without reading it again.
                session.add(submission)
                outcome = await recording.record_runs(
                    session=session,
                    submission_id=submission_id,
                    runs=[run.model_dump() for run in runs],
                )
                if outcome != "retry":
                    finished = (
                        submission if submission.status in SubmissionStatus.FINISHED else None
                    )
                    released = await self._release_after(session, submission_id)
            if outcome != "retry":
                break
            log.warning("submission %s hit a platform fault; retrying", submission_id)
        self.notifier.finished(submission_id, finished)
        for next_id in released:
            self.queue.put_nowait(next_id)
