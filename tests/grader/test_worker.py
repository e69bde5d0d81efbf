"""The worker's job handler against a real Redis: every job it is given gets an answer."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from grader import Grader, GraderConfig
from grader.queueing import RunEvent, results_stream
from grader.worker import EventSender, make_handler
from tests.processes import PrivateRedis, stream_entries

pytestmark = pytest.mark.distributed


@pytest.fixture
def client(tmp_path: Path) -> Iterator[redis.Redis]:
    server = PrivateRedis(tmp_path).start()
    connection = redis.Redis.from_url(server.url)
    yield connection
    connection.close()
    server.kill()


def events(client: redis.Redis, namespace: str) -> list[RunEvent]:
    return [
        RunEvent.model_validate_json(fields[b"event"])
        for _id, fields in stream_entries(client, results_stream(namespace))
    ]


def test_a_malformed_job_is_answered_with_an_error_run(client: redis.Redis) -> None:
    """A job the worker cannot read (say, sent by a newer app) is reported as a failed run,
    not dropped in silence: a job nobody reports on would be sent again forever."""
    grader = Grader(GraderConfig(workers=1))  # never started: a malformed job must not need it
    handle = make_handler(grader, EventSender(client, "ns", give_up_after_s=5), "w-1", "cpu")
    handle({"job": {"id": "42", "code": 7}, "device": "cpu"})
    [event] = events(client, "ns")
    assert (event.job_id, event.event, event.device) == ("42", "finished", "cpu")
    assert event.run is not None and event.run.verdict == "error"
    assert "could not read the job" in (event.run.detail or "")


def test_a_job_without_an_id_is_only_logged(client: redis.Redis) -> None:
    grader = Grader(GraderConfig(workers=1))
    handle = make_handler(grader, EventSender(client, "ns", give_up_after_s=5), "w-1", "cpu")
    handle({"nonsense": True})
    assert events(client, "ns") == []
