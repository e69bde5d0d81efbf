"""Distributed grading under faults, with real PostgreSQL, Redis, worker and web processes:
every submission still gets its verdict, and each is recorded exactly once."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import redis as redis_client

from grader.queueing import RunEvent, queue_for, results_stream, workers_key
from tests.app.submissions.stack import (
    ALL_AT_ONCE,
    EXERCISE,
    SLOW_SOLUTION,
    SOLUTION,
    stack_sql,
    start_web,
    start_worker,
    submit,
    workers_ready,
)
from tests.processes import (
    sign_up_student,
    stream_entries,
    wait_until,
)


def finished(
    client: httpx.Client, headers: dict[str, str], ids: list[int], seconds: float
) -> dict[int, Any]:
    """Wait for every submission; returns them all."""
    deadline = time.monotonic() + seconds
    results: dict[int, Any] = {}
    for ident in ids:
        while True:
            try:
                response = client.get(f"/api/submissions/{ident}?wait=5", headers=headers)
            except httpx.TransportError:
                response = None
            if response is not None and response.json()["status"] in ("done", "error"):
                results[ident] = response.json()
                break
            assert time.monotonic() < deadline, f"submission {ident} never finished"
    return results


def assert_graded_once(results: dict, client: httpx.Client, headers: dict[str, str]) -> None:
    for submission in results.values():
        assert submission["status"] == "done", submission
        assert submission["verdict"] == "passed", submission
        assert sorted(run["device"] for run in submission["runs"]) == ["cpu", "cuda"]
    listed = client.get(f"/api/exercises/{EXERCISE}/submissions?limit=100", headers=headers).json()
    assert sorted(s["id"] for s in listed) == sorted(results)
    progress = client.get("/api/me/progress", headers=headers).json()["lessons"]
    [lesson] = [p for p in progress if p["slug"] == "gpu-support"]
    assert lesson["exercises_passed"] == 1


def test_a_worker_killed_mid_run_is_replaced(tmp_path: Path, stack: dict) -> None:
    web = start_web(tmp_path, stack)
    first = start_worker(tmp_path, stack)
    with httpx.Client(base_url=web.url, timeout=30) as client:
        headers = sign_up_student(client)
        workers_ready(client, 1)
        ids = [submit(client, headers, SLOW_SOLUTION) for _ in range(3)]
        wait_until(
            lambda: any(
                client.get(f"/api/submissions/{i}", headers=headers).json()["status"] == "running"
                for i in ids
            ),
            30,
            "a submission to start running",
        )
        first.kill()
        start_worker(tmp_path, stack)
        results = finished(client, headers, ids, 90)
        assert_graded_once(results, client, headers)


def test_redis_restarted_during_a_burst_of_100(tmp_path: Path, stack: dict) -> None:
    stack["env"] |= ALL_AT_ONCE
    web = start_web(tmp_path, stack)
    start_worker(tmp_path, stack)
    redis = stack["redis"]
    with httpx.Client(base_url=web.url, timeout=30) as client:
        headers = sign_up_student(client)
        # A little slow, so that the burst is still running when Redis goes down.
        paced = "import time\ntime.sleep(0.3)\n" + SOLUTION
        ids = [submit(client, headers, paced) for _ in range(100)]
        wait_until(
            lambda: client.get("/metrics").text.count('verdict="passed"') == 1,
            60,
            "the first verdicts",
        )
        graded_before = sum(
            client.get(f"/api/submissions/{i}", headers=headers).json()["status"] == "done"
            for i in ids
        )
        redis.kill()
        assert graded_before < len(ids), "the burst was over before Redis went down"
        time.sleep(1)
        redis.start()
        results = finished(client, headers, ids, 150)
        assert_graded_once(results, client, headers)
    # Jobs the restart lost are sent again without using up their tries; a job that was
    # running when Redis went down may count one lost try, never more.
    assert max(attempts(stack).values()) <= 2, attempts(stack)


def test_a_long_queue_keeps_its_place(tmp_path: Path, stack: dict) -> None:
    """Jobs that wait in line longer than QUEUED_LEASE_S are still in the queue: none is sent
    again, so none runs twice and none uses up its tries."""
    stack["env"]["QUEUED_LEASE_S"] = "1"
    stack["env"] |= ALL_AT_ONCE
    start_worker(tmp_path, stack, threads=1)
    web = start_web(tmp_path, stack)
    with httpx.Client(base_url=web.url, timeout=30) as client:
        headers = sign_up_student(client)
        workers_ready(client, 1)
        paced = "import time\ntime.sleep(0.4)\n" + SOLUTION
        ids = [submit(client, headers, paced) for _ in range(12)]
        results = finished(client, headers, ids, 120)
        assert_graded_once(results, client, headers)
    assert finished_reports(stack) == {str(i): 1 for i in ids}
    assert set(attempts(stack).values()) == {1}


def test_a_queued_job_whose_device_left_is_not_kept_waiting(tmp_path: Path, stack: dict) -> None:
    """A job waits in a device's queue only while a worker for that device is alive: once
    the last cuda worker is gone, its cuda run is `not_graded` at the next look."""
    stack["env"]["QUEUED_LEASE_S"] = "1"
    stack["env"]["RUNNING_LEASE_S"] = "60"  # only the queued lease may decide here
    presence = redis_client.Redis.from_url(stack["redis"].url)
    cuda = workers_key(stack["namespace"], "cuda")
    presence.zadd(cuda, {"a-gpu-host": time.time() + 600})
    web = start_web(tmp_path, stack)
    with httpx.Client(base_url=web.url, timeout=30) as client:
        headers = sign_up_student(client)
        [ident] = [submit(client, headers, SOLUTION)]
        wait_until(lambda: queued_on(stack, "cuda") == 1, 30, "the job on the cuda queue")
        presence.zrem(cuda, "a-gpu-host")
        wait_until(lambda: "cuda" in recorded_runs(stack, ident), 30, "cuda to be given up")
        start_worker(tmp_path, stack)
        results = finished(client, headers, [ident], 90)
        assert_graded_once(results, client, headers)
    [run] = [r for r in results[ident]["runs"] if r["device"] == "cuda"]
    assert run["verdict"] == "not_graded"
    presence.close()


def test_web_restarted_with_jobs_in_flight(tmp_path: Path, stack: dict) -> None:
    stack["env"] |= ALL_AT_ONCE
    start_worker(tmp_path, stack)
    web = start_web(tmp_path, stack)
    with httpx.Client(base_url=web.url, timeout=30) as client:
        headers = sign_up_student(client)
        ids = [submit(client, headers, SLOW_SOLUTION) for _ in range(8)]
    web.kill()
    time.sleep(2)  # workers finish runs meanwhile; their events wait in the stream
    web = start_web(tmp_path, stack)
    with httpx.Client(base_url=web.url, timeout=30) as client:
        results = finished(client, headers, ids, 120)
        assert_graded_once(results, client, headers)


def test_a_duplicate_delivery_is_recorded_once(tmp_path: Path, stack: dict) -> None:
    """The same job delivered twice (the reaper resending a job that was only slow): both
    workers run it, both report, and the second report changes nothing."""
    stack["env"]["RUNNING_LEASE_S"] = "1"  # shorter than the run: it is re-sent while running
    stack["env"]["QUEUED_LEASE_S"] = "1"
    start_worker(tmp_path, stack)
    start_worker(tmp_path, stack)
    web = start_web(tmp_path, stack)
    with httpx.Client(base_url=web.url, timeout=30) as client:
        headers = sign_up_student(client)
        workers_ready(client, 2)
        slow = "import time\ntime.sleep(3)\n" + SOLUTION
        ids = [submit(client, headers, slow) for _ in range(2)]
        finished(client, headers, ids, 90)
        # Read again once both are in: finishing the second may trim what the first keeps
        # (app/submissions/storage.py), and the two run one after the other.
        first = finished(client, headers, ids, 10)
        assert_graded_once(first, client, headers)
        # The second run of a re-sent job reports after the verdict is in: it must change
        # nothing, neither the submission nor the progress.
        wait_until(
            lambda: any(finished_reports(stack).get(str(i), 0) >= 2 for i in ids),
            30,
            f"a job to be reported twice: {finished_reports(stack)}",
        )
        time.sleep(1)
        again = finished(client, headers, ids, 10)
        assert again == first
        assert_graded_once(again, client, headers)


def queued_on(stack: dict, device: str) -> int:
    """Messages held in a device's Dramatiq queue (waiting or taken, not yet acknowledged)."""
    client = redis_client.Redis.from_url(stack["redis"].url)
    count = int(client.hlen(f"{stack['namespace']}:{queue_for(device)}.msgs"))
    client.close()
    return count


def recorded_runs(stack: dict, submission_id: int) -> list[str]:
    """The devices with a run stored for a submission, straight from the database."""
    sql = f"SELECT device FROM submission_runs WHERE submission_id = {int(submission_id)}"
    return [device for [device] in stack_sql(stack, sql)]


def attempts(stack: dict) -> dict[int, int]:
    """Each submission's counted tries, straight from the database."""
    rows = stack_sql(stack, "SELECT id, attempts FROM submissions")
    return {int(ident): int(tries) for ident, tries in rows}


def finished_reports(stack: dict) -> dict[str, int]:
    """How many `finished` events each job got on the results stream."""
    client = redis_client.Redis.from_url(stack["redis"].url)
    counts: dict[str, int] = {}
    for _id, fields in stream_entries(client, results_stream(stack["namespace"])):
        event = RunEvent.model_validate_json(fields[b"event"])
        if event.event == "finished" and event.device == "cpu":
            counts[event.job_id] = counts.get(event.job_id, 0) + 1
    client.close()
    return counts


WALL_S = 1.5  # the exercise's wall-time limit in the fairness tests: a sleeper ends this soon
SLEEPER = "import time\ntime.sleep(100)\n"


def shorten_wall_time(stack: dict) -> None:
    """After the web process synced the content, which would undo it."""
    stack_sql(
        stack,
        f"UPDATE exercises SET limits = (limits::jsonb || '{{\"wall_time_s\": {WALL_S}}}')::json"
        f" WHERE id = '{EXERCISE}'",
    )


def dispatched_in_turn(stack: dict, ids: list[int]) -> None:
    """Each was handed to the graders only once the one before it had finished."""
    rows = stack_sql(
        stack,
        "SELECT coalesce(dispatched_at >= lag(finished_at) OVER (ORDER BY id), true)"
        f" FROM submissions WHERE id IN ({', '.join(str(int(i)) for i in ids)}) ORDER BY id",
    )
    assert [flag for [flag] in rows] == ["t"] * len(ids), rows


def test_six_sleepers_of_one_student_hold_up_another_for_one_run_at_most(
    tmp_path: Path, stack: dict
) -> None:
    """One worker that runs one job at a time: the hog's six submissions that each sleep
    until the wall-time limit delay another student's by one run, not six."""
    start_worker(tmp_path, stack, threads=1)
    web = start_web(tmp_path, stack)
    shorten_wall_time(stack)
    with httpx.Client(base_url=web.url, timeout=30) as client:
        hog, honest = sign_up_student(client), sign_up_student(client)
        workers_ready(client, 1)
        sleepers = [submit(client, hog, SLEEPER) for _ in range(6)]
        assert queued_on(stack, "cpu") == 1  # only the first was sent
        last = client.get(f"/api/submissions/{sleepers[-1]}", headers=hog).json()
        assert (last["status"], last["waiting_for_own"]) == ("queued", 5)
        started = time.monotonic()
        mine = submit(client, honest, SOLUTION)
        result = finished(client, honest, [mine], 60)[mine]
        took = time.monotonic() - started
        assert result["verdict"] == "passed", result
        assert took < WALL_S + 2.0, f"the honest verdict took {took:.1f} s"
        outcomes = finished(client, hog, sleepers, 90)
    assert [outcomes[i]["verdict"] for i in sleepers] == ["timeout"] * 6
    dispatched_in_turn(stack, sleepers)
    assert set(attempts(stack).values()) == {1}


def test_waiting_submissions_survive_a_web_restart(tmp_path: Path, stack: dict) -> None:
    """Waiting submissions live in the database: a web process killed while they wait
    loses none, and the next one hands them over one at a time."""
    start_worker(tmp_path, stack)
    web = start_web(tmp_path, stack)
    with httpx.Client(base_url=web.url, timeout=30) as client:
        headers = sign_up_student(client)
        workers_ready(client, 1)
        ids = [submit(client, headers, SLOW_SOLUTION) for _ in range(4)]
    web.kill()
    web = start_web(tmp_path, stack)
    with httpx.Client(base_url=web.url, timeout=30) as client:
        results = finished(client, headers, ids, 120)
        assert_graded_once(results, client, headers)
    dispatched_in_turn(stack, ids)
