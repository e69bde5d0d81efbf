"""/metrics through prometheus_client in multiprocess mode: counted where results are
recorded (the same in embedded and distributed mode), added up over web processes, and a
scrape that never reads the submissions table."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from dramatiq import Message
from fastapi import FastAPI
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import event

from app import metrics
from app.config import Settings
from app.db import Database
from app.grading import recording
from app.grading.distributed import DistributedGrading
from app.lessons.catalog import live_exercise
from app.models.states import SubmissionMode
from app.submissions import service
from grader.queueing import actor_for, queue_for
from tests.helpers import make_student, metric
from tests.processes import Web, sign_up_student, wait_until

EXERCISE = "gpu-support-device-independent"  # graded on cpu and cuda


def run(device: str, verdict: str, duration_ms: int = 250) -> dict[str, Any]:
    return {
        "device": device,
        "verdict": verdict,
        "stdout": "",
        "stderr": "",
        "exit_code": 0,
        "duration_ms": duration_ms,
        "diff": "",
    }


async def scrape(client: httpx.AsyncClient) -> str:
    response = await client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
    return response.text


def value(text: str, name: str, **labels: str) -> float:
    return metric(text, name, **labels) or 0.0


async def graded(db: Database, verdicts: dict[str, str], *, commit: bool = True) -> int:
    """A submission whose runs are recorded as the graders record them (both modes go
    through recording.record_runs)."""
    _, user_id = await make_student(db)
    async with db.writer() as session:
        exercise = await live_exercise(session=session, exercise_id=EXERCISE)
        assert exercise is not None
        submission = await service.create_submission(
            session=session, user_id=user_id, exercise=exercise, code="print(1)\n"
        )
        runs = [run(device, verdicts[device]) for device in submission.devices]
        outcome = await recording.record_runs(
            session=session, submission_id=submission.id, runs=runs
        )
        assert outcome == "recorded"
        ident = submission.id
        if commit:
            await session.commit()
        else:
            await session.rollback()
        return ident


PASSED = {"mode": "grade", "status": "done", "verdict": "passed"}


async def test_a_finished_submission_is_counted_by_verdict_once_committed(
    client: httpx.AsyncClient, db: Database
) -> None:
    before = await scrape(client)
    await graded(db, {"cpu": "passed", "cuda": "not_graded"})
    await graded(db, {"cpu": "wrong_output", "cuda": "not_graded"})
    await graded(db, {"cpu": "passed", "cuda": "not_graded"}, commit=False)  # rolled back
    after = await scrape(client)
    name = "tensorcamp_submissions_total"
    assert value(after, name, **PASSED) == value(before, name, **PASSED) + 1
    wrong = PASSED | {"verdict": "wrong_output"}
    assert value(after, name, **wrong) == value(before, name, **wrong) + 1


async def test_grading_latency_and_run_duration_per_device(
    client: httpx.AsyncClient, db: Database
) -> None:
    before = await scrape(client)
    await graded(db, {"cpu": "passed", "cuda": "not_graded"})
    after = await scrape(client)
    for histogram, grew_by in (
        ("tensorcamp_grading_latency_seconds", None),
        ("tensorcamp_run_duration_seconds", 0.25),
    ):
        count, total = f"{histogram}_count", f"{histogram}_sum"
        assert value(after, count, device="cpu") == value(before, count, device="cpu") + 1
        if grew_by is not None:
            assert value(after, total, device="cpu") == pytest.approx(
                value(before, total, device="cpu") + grew_by
            )
        # A device that ran nothing measures no grading.
        assert value(after, count, device="cuda") == value(before, count, device="cuda")


async def test_a_platform_failure_is_counted_as_an_error(
    client: httpx.AsyncClient, db: Database
) -> None:
    _, user_id = await make_student(db)
    async with db.writer() as session:
        exercise = await live_exercise(session=session, exercise_id=EXERCISE)
        assert exercise is not None
        submission = await service.create_submission(
            session=session,
            user_id=user_id,
            exercise=exercise,
            code="print(1)\n",
            mode=SubmissionMode.RUN,
        )
        before = await scrape(client)
        assert await recording.fail(session=session, submission_id=submission.id, detail="broke")
        assert not await recording.fail(session=session, submission_id=submission.id, detail="x")
        await session.commit()
    errors = {"mode": "run", "status": "error", "verdict": "none"}
    after = await scrape(client)
    name = "tensorcamp_submissions_total"
    assert value(after, name, **errors) == value(before, name, **errors) + 1


async def test_a_scrape_reads_nothing_from_the_submissions_table(
    client: httpx.AsyncClient, db: Database
) -> None:
    await graded(db, {"cpu": "passed", "cuda": "not_graded"})
    statements: list[str] = []

    def note(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        statements.append(statement.lower())

    event.listen(db.engine.sync_engine, "before_cursor_execute", note)
    try:
        await scrape(client)
    finally:
        event.remove(db.engine.sync_engine, "before_cursor_execute", note)
    assert any("users" in statement for statement in statements), statements
    assert not [s for s in statements if "submission" in s]


async def test_http_latency_is_labelled_by_route_template(client: httpx.AsyncClient) -> None:
    for ident in (987654, 987655):
        response = await client.get(f"/api/submissions/{ident}")
        assert response.status_code == 401
    await client.get(f"/no-such-page-{uuid.uuid4().hex}")
    text = await scrape(client)
    labels = {"method": "GET", "route": "/api/submissions/{submission_id}", "status": "4xx"}
    assert value(text, "tensorcamp_http_request_duration_seconds_count", **labels) >= 2
    assert value(text, "tensorcamp_http_request_duration_seconds_count", **labels | {
        "route": "unmatched"
    }) >= 1  # fmt: skip
    assert "987654" not in text
    assert "no-such-page" not in text


async def test_the_embedded_queue_publishes_its_length(client: httpx.AsyncClient) -> None:
    device = f"test-{uuid.uuid4().hex[:6]}"
    queue = metrics.MeasuredQueue(device)
    for ident in (1, 2, 3):
        queue.put_nowait(ident)
    assert value(await scrape(client), "tensorcamp_queue_depth", device=device) == 3
    await queue.get()
    assert value(await scrape(client), "tensorcamp_queue_depth", device=device) == 2


async def test_the_distributed_queue_depth_is_read_from_redis(
    app: FastAPI, client: httpx.AsyncClient, db: Database, settings: Settings
) -> None:
    namespace = f"tc-metrics-{uuid.uuid4().hex[:8]}"
    grading = DistributedGrading(
        database=db,
        settings=settings.model_copy(
            update={"redis_url": "redis://127.0.0.1:6379/0", "grading_namespace": namespace}
        ),
    )
    try:
        for ident in (1, 2):
            message: Message[Any] = Message(
                queue_name=queue_for("cpu"),
                actor_name=actor_for("cpu"),
                args=({"submission": ident},),
                kwargs={},
                options={},
            )
            await asyncio.to_thread(grading.broker.enqueue, message)
        app.state.grading = grading
        text = await scrape(client)
        # The test process may also hold an embedded queue's own gauge (0) from an earlier
        # test's app; the Redis queues' depth is the family the scrape adds.
        depths = [
            sample.value
            for family in text_string_to_metric_families(text)
            for sample in family.samples
            if sample.name == "tensorcamp_queue_depth" and sample.labels == {"device": "cpu"}
        ]
        assert 2 in depths, depths
        assert "tensorcamp_workers" in text
    finally:
        keys = [key async for key in grading.redis.scan_iter(match=f"{grading.namespace}:*")]
        if keys:
            await grading.redis.delete(*keys)
        await grading.stop()


# --- several web processes on one host ---------------------------------------------------------


@pytest.fixture
def shared_directory(tmp_path: Path) -> Iterator[dict[str, str]]:
    directory = tmp_path / "metrics"
    directory.mkdir()
    yield {
        "ENVIRONMENT": "test",
        "SECRET_KEY": "metrics-test-secret-key-that-is-long-enough",
        "GRADING_ENABLED": "false",
        "PROMETHEUS_MULTIPROC_DIR": str(directory),
    }


def web(tmp_path: Path, env: dict[str, str], name: str) -> Web:
    data = tmp_path / name
    data.mkdir()
    return Web(data, env | {"DATA_DIR": str(data)}).start()


def test_several_web_processes_add_up_and_a_killed_one_stops_counting_as_busy(
    tmp_path: Path, shared_directory: dict[str, str]
) -> None:
    first = web(tmp_path, shared_directory, "first")
    second = web(tmp_path, shared_directory, "second")
    try:
        with httpx.Client(base_url=first.url) as one, httpx.Client(base_url=second.url) as two:
            for client, times in ((one, 3), (two, 2)):
                for _ in range(times):
                    assert client.get("/healthz").status_code == 200
            healthz = {"method": "GET", "route": "/healthz", "status": "2xx"}
            count = "tensorcamp_http_request_duration_seconds_count"
            # Whichever process answers the scrape, it shows both processes' requests.
            assert metric(one.get("/metrics").text, count, **healthz) == 5
            assert metric(two.get("/metrics").text, count, **healthz) == 5

            # A request the second process is holding (a submission waiting for a grader
            # that is off), then that process is killed: it is busy no more.
            headers = sign_up_student(two)
            held = threading.Thread(target=hold, args=(second.url, headers), daemon=True)
            held.start()
            busy = "tensorcamp_http_requests_in_progress"
            wait_until(lambda: metric(one.get("/metrics").text, busy) == 2, 20, "a held request")
            assert second.process is not None
            os.kill(second.process.pid, signal.SIGKILL)
            second.process.wait(10)
            assert metric(one.get("/metrics").text, busy) == 1  # the scrape itself
            assert metric(one.get("/metrics").text, count, **healthz) == 5  # counters stay
    finally:
        first.stop()
        second.kill()


def hold(url: str, headers: dict[str, str]) -> None:
    # The process is killed under it, as intended.
    with httpx.Client(base_url=url, timeout=60) as client, contextlib.suppress(httpx.HTTPError):
        client.post(
            f"/api/exercises/{EXERCISE}/submissions?wait=30",
            json={"code": "print(1)\n"},
            headers=headers,
        )
