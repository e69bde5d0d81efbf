"""The distributed stack of the submissions tests (real PostgreSQL, Redis, worker and web
processes): its helpers. Its fixtures (`database_url`, `redis_server`, `stack`) are in this
folder's conftest.py."""

from __future__ import annotations

from pathlib import Path

import httpx

from app.config import REPO_ROOT
from tests.helpers import metric
from tests.processes import Service, Web, psql, wait_until, worker

EXERCISE = "gpu-support-device-independent"
SOLUTION = (
    REPO_ROOT / "exercises/lessons/gpu-support/exercises" / EXERCISE / "solution.py"
).read_text()
SLOW_SOLUTION = "import time\ntime.sleep(1.5)\n" + SOLUTION
# For the tests of the queues themselves: one student's burst all in Redis at once, as
# many students' would be (by default a student has one submission there at a time).
ALL_AT_ONCE = {"GRADING_IN_FLIGHT_PER_STUDENT": "1000"}


def stack_sql(stack: dict, sql: str) -> list[list[str]]:
    return psql(sql, stack["env"]["DATABASE_URL"].rsplit("/", 1)[1])


def start_web(tmp_path: Path, stack: dict) -> Web:
    web = Web(tmp_path, stack["env"]).start()
    stack["services"].append(web)
    return web


def start_worker(tmp_path: Path, stack: dict, threads: int = 2) -> Service:
    service = worker(tmp_path, stack["redis"].url, stack["namespace"], threads).start()
    stack["services"].append(service)
    return service


def workers_ready(client: httpx.Client, count: int) -> None:
    wait_until(
        lambda: metric(client.get("/metrics").text, "tensorcamp_workers", device="cpu") == count,
        60,
        f"{count} cpu worker(s)",
    )


def submit(client: httpx.Client, headers: dict[str, str], code: str) -> int:
    response = client.post(
        f"/api/exercises/{EXERCISE}/submissions", json={"code": code}, headers=headers
    )
    assert response.status_code == 202, response.text
    return int(response.json()["id"])
