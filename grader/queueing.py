"""The queue contract between the app and grader workers (distributed mode).

Jobs travel as Dramatiq messages, one queue per device kind; workers answer with events on
a Redis stream that the app consumes. Both sides agree on these names and models only.
"""

from __future__ import annotations

import time
from typing import Literal

from pydantic import BaseModel, Field

from .contract import Job, Run

DEFAULT_NAMESPACE = "tensorcamp"
ALIVE_EVERY_S = 2.0  # a running job reports it is alive this often ...
WORKER_TTL_S = 15.0  # ... and a worker that has not said so for this long counts as gone


def queue_for(device: str) -> str:
    return f"grade-{device}"


def actor_for(device: str) -> str:
    return f"grade_on_{device}"


def doorbell_for(namespace: str, queue_name: str) -> str:
    """A Redis list the app pushes to after each job it queues on `queue_name`: an idle worker
    waits on it (BLPOP) and takes the job at once, instead of looking again every few
    milliseconds. At most DOORBELL_LENGTH rings are kept; one is enough to wake a worker."""
    return f"{namespace}:{queue_name}.doorbell"


DOORBELL_LENGTH = 16


def results_stream(namespace: str) -> str:
    return f"{namespace}:results"


def workers_key(namespace: str, device: str) -> str:
    """A sorted set: member = worker id, score = when its presence expires (unix time)."""
    return f"{namespace}:workers:{device}"


class RunRequest(BaseModel):
    """Run `job` on `device`. `delivery` counts how often the app has sent it; `grade` false
    means a try-out: run the code, compare nothing."""

    job: Job
    device: str
    delivery: int = 1
    grade: bool = True


class RunEvent(BaseModel):
    job_id: str
    device: str
    delivery: int
    event: Literal["started", "alive", "finished"]
    worker: str
    run: Run | None = None
    at: float = Field(default_factory=time.time)
