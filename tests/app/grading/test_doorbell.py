"""The app rings a queue's doorbell each time it queues a job there (the grader worker's
side, waking on it, is tests/grader/test_worker.py), and keeps only a few rings."""

from __future__ import annotations

import uuid

from app.config import Settings
from app.db import Database
from app.grading.distributed import DistributedGrading
from grader import Job
from grader.queueing import DOORBELL_LENGTH, RunRequest, doorbell_for, queue_for


async def test_queueing_a_job_rings_its_queues_doorbell(db: Database, settings: Settings) -> None:
    namespace = f"tc-doorbell-{uuid.uuid4().hex[:8]}"
    grading = DistributedGrading(
        database=db,
        settings=settings.model_copy(
            update={"redis_url": "redis://127.0.0.1:6379/0", "grading_namespace": namespace}
        ),
    )
    doorbell = doorbell_for(namespace, queue_for("cpu"))
    job = Job(id="1", code="print(1)", expected_output="1")
    try:
        await grading.enqueue(RunRequest(job=job, device="cpu"))
        assert await grading.redis.llen(doorbell) == 1
        for _ in range(DOORBELL_LENGTH + 3):
            await grading.enqueue(RunRequest(job=job, device="cpu"))
        assert await grading.redis.llen(doorbell) == DOORBELL_LENGTH  # a few rings, kept
        assert await grading.redis.llen(f"{namespace}:{queue_for('cpu')}") == DOORBELL_LENGTH + 4
    finally:
        keys = [key async for key in grading.redis.scan_iter(match=f"{namespace}:*")]
        if keys:
            await grading.redis.delete(*keys)
        await grading.stop()
