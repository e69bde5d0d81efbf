"""Regrades in distributed mode: the web processes grade a regrade's submissions again on
the grader workers, through the same queues as live submissions, one job at a time and only
while no live job waits in the cpu queue (live submissions first).

A regrade job's id is `regrade:<token>`, never a submission's id, so its runs are never
recorded as a live submission's. Whichever web process reads a run's event from the results
stream (a consumer group shares them out) keeps the run in Redis for a while; the process
that sent the job waits for it there. A result is claimed in Redis before it is graded, so
two web processes never grade the same one; a process that stops mid-way leaves its claim to
run out (CLAIM_S), and the result is graded again by whoever looks next."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from typing import TYPE_CHECKING, Any

from redis.exceptions import RedisError

from app.submissions.regrade import Regrader
from grader import Job, Run
from grader.queueing import RunEvent, RunRequest

if TYPE_CHECKING:
    from app.grading.distributed import DistributedGrading

log = logging.getLogger(__name__)
PREFIX = "regrade:"
CLAIM_S = 15 * 60  # a claimed result not graded by then is free again
KEEP_S = 3600  # how long a run waits in Redis for the process that sent its job
WAIT_MARGIN_S = 120  # beyond the job's own wall-time limit: queueing, a worker restarting
LOOK_S = 0.25
LOST = "The grader workers did not answer this regrade job in time."


def is_regrade_job(job_id: str) -> bool:
    return job_id.startswith(PREFIX)


class RemoteRegrades:
    def __init__(self, grading: DistributedGrading) -> None:
        self.grading = grading
        self.redis = grading.redis
        self.namespace = grading.namespace
        self.regrader = Regrader(database=grading.database, grade=self.grade, claim=self.claim)

    def _key(self, *parts: object) -> str:
        return ":".join([self.namespace, "regrade", *(str(p) for p in parts)])

    async def claim(self, result_id: int) -> bool:
        try:
            return bool(await self.redis.set(self._key("claim", result_id), 1, nx=True, ex=CLAIM_S))
        except RedisError:
            return False

    async def record(self, event: RunEvent) -> None:
        """A regrade job's event, read by this process: its finished run, kept for the
        process that waits for it."""
        if event.event != "finished" or event.run is None:
            return
        key = self._key("run", event.job_id, event.device)
        await self.redis.set(key, event.run.model_dump_json(), ex=KEEP_S)

    async def grade(self, job: Job) -> list[dict[str, Any]]:
        """The job's runs, one per device, graded by the workers; a device no worker serves
        now is `not_graded`, as for live submissions."""
        from app.grading.distributed import not_graded_run

        job_id = f"{PREFIX}{uuid.uuid4().hex}"
        live = await self.grading.workers()
        runs: dict[str, dict[str, Any]] = {}
        sent: list[str] = []
        for device in job.devices:
            if not live.get(device, 0):
                runs[device] = not_graded_run(device)
                continue
            request = RunRequest(job=job.model_copy(update={"id": job_id}), device=device)
            await self.grading.enqueue(request)
            sent.append(device)
        deadline = time.monotonic() + job.limits.wall_time_s + WAIT_MARGIN_S
        while sent and time.monotonic() < deadline:
            for device in list(sent):
                with contextlib.suppress(RedisError):
                    found = await self.redis.getdel(self._key("run", job_id, device))
                    if found is not None:
                        runs[device] = Run.model_validate_json(found).model_dump()
                        sent.remove(device)
            if sent:
                await asyncio.sleep(LOOK_S)
        for device in sent:
            runs[device] = Run.without_output(device, "error", LOST).model_dump()
        return [runs[device] for device in job.devices]

    async def run(self) -> None:
        """Grades regrade results while the cpu queue holds no live job; looks again every
        REAP_EVERY_S otherwise."""
        while True:
            await asyncio.sleep(self.grading.settings.reap_every_s)
            try:
                while await self._idle() and await self.regrader.step():
                    pass
            except Exception:
                log.exception("regrading failed; trying again")

    async def _idle(self) -> bool:
        """No live job waits in the cpu queue, and a cpu worker is there to take one."""
        live = await self.grading.workers()
        if not live.get("cpu", 0):
            return False
        depth = await self.grading.shared_queue_depth()
        return depth.get("cpu", 1) == 0
