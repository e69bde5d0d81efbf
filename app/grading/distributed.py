"""Distributed grading: jobs go to grader workers through Dramatiq on Redis, one queue per
device kind; workers answer with events on a Redis stream that every web process consumes
(a consumer group shares them out). The submission row stays the source of truth: a lease
that runs out puts the job back on the queue, and recording a run is idempotent. Only
submissions handed to the graders are sent, a few per student at most (fairness.py): the
transaction that records a finish releases the student's next, which this process sends."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from typing import Any

import redis.asyncio as aioredis
from dramatiq import Message
from dramatiq.brokers.redis import RedisBroker
from redis.exceptions import RedisError, ResponseError
from sqlalchemy.ext.asyncio import AsyncSession

from app.config import Settings
from app.db import Database
from app.grading import fairness, recording
from app.grading.dispatch import Notifier
from app.grading.jobs import job_for
from app.models import Exercise, Submission, SubmissionMode, SubmissionStatus
from app.submissions.remote_regrade import RemoteRegrades, is_regrade_job
from grader import Run
from grader.queueing import (
    DOORBELL_LENGTH,
    RunEvent,
    RunRequest,
    actor_for,
    doorbell_for,
    queue_for,
    results_stream,
    workers_key,
)

log = logging.getLogger(__name__)
GROUP = "recorders"
NOT_HERE = "not graded on {device} here: no worker for it is running"
STOP_S = 5.0  # how long stopping waits for the background loops to end
SENT_MEMORY_S = 7 * 24 * 3600  # how long the id of a job's queue message is kept
NO_CPU_WORKER = "No grader worker for cpu is running, so this submission could not be graded."


def not_graded_run(device: str) -> dict[str, Any]:
    return Run.without_output(device, "not_graded", NOT_HERE.format(device=device)).model_dump()


class DistributedGrading:
    def __init__(self, *, database: Database, settings: Settings) -> None:
        self.database = database
        self.settings = settings
        self.namespace = settings.grading_namespace
        self.redis = aioredis.Redis.from_url(settings.redis_url)
        self.broker = RedisBroker(url=settings.redis_url, namespace=self.namespace, middleware=[])
        self.notifier = Notifier()
        self.consumer = f"web-{uuid.uuid4().hex[:8]}"
        self._tasks: list[asyncio.Task[None]] = []
        # When a worker for each device was last seen; a fresh process gives them a grace.
        self._started_at = time.monotonic()
        self._last_seen: dict[str, float] = {}
        self.regrades = RemoteRegrades(self)

    async def start(self) -> None:
        self._tasks = [
            asyncio.create_task(self._consume_events()),
            asyncio.create_task(self._reap()),
            asyncio.create_task(self.regrades.run()),
        ]

    def wake_background(self) -> None:
        """A regrade was made: look for its submissions (regrade.wake_graders)."""
        self.regrades.regrader.wake()

    async def stop(self) -> None:
        """Ends the background loops. A cancellation can be swallowed: redis-py may turn one
        that lands inside a command into a RedisError, which the loops catch and carry on
        after, so one cancel() once left a stopping process waiting for ever (uvicorn's
        one-by-one restart stalled on it). They are cancelled again until they end, for at
        most STOP_S."""
        pending = set(self._tasks)
        deadline = time.monotonic() + STOP_S
        while pending and time.monotonic() < deadline:
            for task in pending:
                task.cancel()
            _, pending = await asyncio.wait(pending, timeout=0.5)
        if pending:
            log.warning("%d grading loops did not stop within %s s", len(pending), STOP_S)
        await self.redis.aclose()
        self.broker.close()

    async def submitted(self, submission_id: int) -> None:
        await self._deliver_all([submission_id], only_if_expired=False)

    async def ready(self) -> bool:
        try:
            return bool(await self.redis.ping())
        except RedisError:
            return False

    async def workers(self) -> dict[str, int]:
        """Live workers per device, from their presence announcements."""
        counts: dict[str, int] = {}
        now = time.time()
        try:
            async for key in self.redis.scan_iter(match=workers_key(self.namespace, "*")):
                device = key.decode().rsplit(":", 1)[-1]
                counts[device] = int(await self.redis.zcount(key, now, "+inf"))
        except RedisError:
            return {}
        for device, count in counts.items():
            if count:
                self._last_seen[device] = time.monotonic()
        return counts

    async def shared_queue_depth(self) -> dict[str, int]:
        """Messages waiting in each device's Dramatiq queue (taken ones are not counted)."""
        devices = sorted({"cpu", *await self.workers()})
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                for device in devices:
                    pipe.llen(f"{self.namespace}:{queue_for(device)}")
                lengths = await pipe.execute()
        except RedisError:
            return {}
        return dict(zip(devices, (int(n) for n in lengths), strict=True))

    def _served(self, device: str, live: dict[str, int]) -> bool:
        """A worker for the device is running (for cpu: or was, within the grace period)."""
        if live.get(device, 0):
            return True
        return device == "cpu" and not self._missing_for_long("cpu")

    def _missing_for_long(self, device: str) -> bool:
        seen = self._last_seen.get(device, self._started_at)
        return time.monotonic() - seen > self.settings.no_worker_grace_s

    # --- sending jobs ---------------------------------------------------------------------

    async def _deliver_all(self, submission_ids: list[int], *, only_if_expired: bool) -> None:
        """Deliver these; then, sent fresh, whatever their ending released."""
        pending = [(ident, only_if_expired) for ident in submission_ids]
        while pending:
            ident, expired_only = pending.pop(0)
            released = await self._deliver(ident, only_if_expired=expired_only)
            pending += [(next_id, False) for next_id in released]

    async def _release_after(self, session: AsyncSession, submission_id: int) -> list[int]:
        """The student's next waiting submissions, now that this one has finished."""
        return await fairness.release_next(
            session=session,
            limit=self.settings.grading_in_flight_per_student,
            after=submission_id,
        )

    async def _deliver(self, submission_id: int, *, only_if_expired: bool) -> list[int]:
        """Send the job to each device's queue that still lacks a run; returns what the
        submission's ending (no worker, too many tries) released of the student's next."""
        live = await self.workers()
        released: list[int] = []
        async with self.database.writer() as session, session.begin():
            submission = await recording.take_for_delivery(
                session=session,
                submission_id=submission_id,
                lease_s=self.settings.queued_lease_s,
                only_if_expired=only_if_expired,
            )
            if submission is None:
                return []
            if submission.attempts > self.settings.max_deliveries:
                await recording.fail(
                    session=session,
                    submission_id=submission_id,
                    detail=f"Grading did not finish after {self.settings.max_deliveries} tries.",
                )
                finished = True
            elif (
                only_if_expired
                and "cpu" in submission.devices
                and live.get("cpu", 0) == 0
                and self._missing_for_long("cpu")
            ):
                finished = await recording.fail(
                    session=session, submission_id=submission_id, detail=NO_CPU_WORKER
                )
            else:
                finished = False
            if finished:
                send: list[str] = []
            else:
                # The very first delivery (attempts just became 1 and nothing was ever sent)
                # has no run recorded yet: no need to look.
                first = not only_if_expired and submission.attempts == 1
                done = (
                    set()
                    if first
                    else await recording.recorded_devices(
                        session=session, submission_id=submission_id
                    )
                )
                missing = [d for d in submission.devices if d not in done]
                absent = [d for d in missing if d != "cpu" and live.get(d, 0) == 0]
                if absent:
                    await recording.record_runs(
                        session=session,
                        submission_id=submission_id,
                        runs=[not_graded_run(d) for d in absent],
                    )
                send = [d for d in missing if d not in absent]
                if send and live.get("cpu", 0) == 0 and "cpu" in send:
                    submission.detail = (
                        "Waiting for a grader worker for cpu; none is running right now."
                    )
                exercise = await session.get_one(Exercise, submission.exercise_id)
                job = job_for(submission, exercise)
                delivery = submission.attempts
                grade = submission.mode == SubmissionMode.GRADE
            status = submission.status
            if status in SubmissionStatus.FINISHED or finished:
                released = await self._release_after(session, submission_id)
        if status in SubmissionStatus.FINISHED or finished:
            self.notifier.finished(submission_id)
        for device in send:
            request = RunRequest(job=job, device=device, delivery=delivery, grade=grade)
            try:
                sent = await self.enqueue(request)
            except Exception as exc:  # Redis away: the lease runs out and the reaper re-sends
                log.warning("could not queue submission %s for %s: %s", submission_id, device, exc)
            else:
                await self._remember_sent(submission_id, device, sent)
        return released

    async def enqueue(self, request: RunRequest) -> Message[Any]:
        """Queue `request` for the workers of its device, then ring its queue's doorbell so
        that an idle worker takes it at once (grader.queueing.doorbell_for); a ring lost is
        only a worker that looks a little later."""
        message: Message[Any] = Message(
            queue_name=queue_for(request.device),
            actor_name=actor_for(request.device),
            args=(request.model_dump(mode="json"),),
            kwargs={},
            options={},
        )
        sent: Message[Any] = await asyncio.to_thread(self.broker.enqueue, message)
        doorbell = doorbell_for(self.namespace, message.queue_name)
        with contextlib.suppress(RedisError):
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.lpush(doorbell, 1)
                pipe.ltrim(doorbell, 0, DOORBELL_LENGTH - 1)
                await pipe.execute()
        return sent

    async def _remember_sent(self, submission_id: int, device: str, message: Message[Any]) -> None:
        with contextlib.suppress(RedisError):  # forgotten: the reaper re-sends it, uncounted
            await self.redis.set(
                self._sent_key(submission_id, device),
                message.options["redis_message_id"],
                ex=SENT_MEMORY_S,
            )

    def _sent_key(self, submission_id: int, device: str) -> str:
        return f"{self.namespace}:sent:{submission_id}:{device}"

    async def _still_in_queue(self, submission_id: int, devices: list[str]) -> bool:
        """Whether every message last sent for these devices is still held by Redis (waiting
        in its queue, or taken by a worker that has not finished it). Dramatiq keeps a
        message in the queue's `.msgs` hash from enqueue until it is acknowledged."""
        if not devices:
            return False
        try:
            for device in devices:
                message_id = await self.redis.get(self._sent_key(submission_id, device))
                held = f"{self.namespace}:{queue_for(device)}.msgs"
                if message_id is None or not await self.redis.hexists(held, message_id):
                    return False
        except RedisError:
            return False
        return True

    async def _reap(self) -> None:
        while True:
            await asyncio.sleep(self.settings.reap_every_s)
            try:
                # A sweep for waiting submissions whose student has room (the limit was
                # raised, or a release was missed): normally it finds none.
                async with self.database.writer() as session, session.begin():
                    released = await fairness.release_next(
                        session=session, limit=self.settings.grading_in_flight_per_student
                    )
                await self._deliver_all(released, only_if_expired=False)
                async with self.database.sessionmaker() as session:
                    ids = await recording.expired(session=session)
                for submission_id in ids:
                    await self._resend_expired(submission_id)
            except Exception:
                log.exception("reaping expired submissions failed; trying again")

    async def _resend_expired(self, submission_id: int) -> None:
        """A lease ran out. A job that is only waiting its turn in a long queue keeps its
        place; one the queue lost, or whose worker went silent, is sent again."""
        async with self.database.sessionmaker() as session:
            submission = await session.get(Submission, submission_id)
            if submission is None:
                return
            status = submission.status
            done = await recording.recorded_devices(session=session, submission_id=submission_id)
            missing = [d for d in submission.devices if d not in done]
        if status == SubmissionStatus.QUEUED and await self._still_in_queue(submission_id, missing):
            live = await self.workers()
            # Waiting is worth it only while someone will take each of its messages.
            if all(self._served(device, live) for device in missing):
                async with self.database.writer() as session, session.begin():
                    await recording.extend_queued_lease(
                        session=session,
                        submission_id=submission_id,
                        lease_s=self.settings.queued_lease_s,
                    )
                return
        await self._deliver_all([submission_id], only_if_expired=True)

    # --- receiving events -----------------------------------------------------------------

    async def _ensure_group(self) -> None:
        with contextlib.suppress(ResponseError):  # BUSYGROUP: it exists already
            await self.redis.xgroup_create(
                results_stream(self.namespace), GROUP, id="0", mkstream=True
            )

    async def _consume_events(self) -> None:
        stream = results_stream(self.namespace)
        backoff = 0.2
        while True:
            try:
                await self._ensure_group()
                last_claim = 0.0
                while True:
                    if time.monotonic() - last_claim > self.settings.claim_idle_ms / 2000:
                        await self._claim_abandoned(stream)
                        last_claim = time.monotonic()
                    answer: Any = await self.redis.xreadgroup(
                        GROUP, self.consumer, {stream: ">"}, count=100, block=1000
                    )
                    for _name, entries in answer or []:
                        for entry_id, fields in entries:
                            await self._handle_and_ack(stream, entry_id, fields)
                    backoff = 0.2
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError) as exc:
                # Redis restarted or unreachable; its stream and group may be gone too.
                log.warning("results stream unavailable (%s); retrying", exc)
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 5.0)

    async def _claim_abandoned(self, stream: str) -> None:
        """Take over events a crashed web process read but never acknowledged."""
        answer: Any = await self.redis.xautoclaim(
            stream, GROUP, self.consumer, self.settings.claim_idle_ms, count=100
        )
        for entry_id, fields in answer[1]:
            await self._handle_and_ack(stream, entry_id, fields)

    async def _handle_and_ack(
        self, stream: str, entry_id: bytes, fields: dict[bytes, bytes]
    ) -> None:
        try:
            if fields:
                await self._handle(fields)
        except Exception:
            # Dropped rather than retried forever: the submission's lease runs out and the
            # reaper sends the job again, so nothing is lost.
            log.exception("recording grading event %s failed; dropping it", entry_id)
        await self.redis.xack(stream, GROUP, entry_id)

    async def _handle(self, fields: dict[bytes, bytes]) -> None:
        event = RunEvent.model_validate_json(fields[b"event"])
        if is_regrade_job(event.job_id):
            await self.regrades.record(event)
            return
        try:
            submission_id = int(event.job_id)
        except ValueError:
            return
        async with self.database.writer() as session, session.begin():
            if event.event in ("started", "alive"):
                await recording.mark_started(
                    session=session,
                    submission_id=submission_id,
                    lease_s=self.settings.running_lease_s,
                )
                return
            assert event.run is not None
            outcome = await recording.record_runs(
                session=session,
                submission_id=submission_id,
                runs=[event.run.model_dump()],
            )
            # Releases nothing unless this run finished the submission.
            released = (
                [] if outcome == "retry" else await self._release_after(session, submission_id)
            )
        if outcome == "retry":
            await self._deliver_all([submission_id], only_if_expired=False)
            return
        self.notifier.finished(submission_id)
        await self._deliver_all(released, only_if_expired=False)
