"""The worker's job handler against a real Redis: every job it is given gets an answer."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from dramatiq import Message

from grader import Grader, GraderConfig
from grader.queueing import RunEvent, doorbell_for, queue_for, results_stream
from grader.worker import EventSender, build_broker, make_handler
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


def test_an_idle_worker_takes_a_job_when_the_doorbell_rings(tmp_path: Path) -> None:
    """An idle consumer waits on its queue's doorbell: a job queued and rung while it waits
    is taken at once, not at the end of its timeout (here 3 s); a job queued without a ring
    (an older app) is still taken at the timeout, as Dramatiq's own consumer would."""
    server = PrivateRedis(tmp_path).start()
    broker = build_broker(server.url, "ns")
    try:
        broker.declare_queue(queue_for("cpu"))
        consumer = broker.consume(queue_for("cpu"), prefetch=1, timeout=3000)

        def seconds_to_take(ring: bool) -> float:
            taken: list[float] = []

            def take() -> None:
                while (message := next(consumer)) is None:
                    pass
                taken.append(time.monotonic())
                consumer.ack(message)

            taker = threading.Thread(target=take)
            taker.start()
            time.sleep(0.5)  # the consumer waits on the doorbell by now
            queued = time.monotonic()
            broker.enqueue(
                Message(queue_name=queue_for("cpu"), actor_name="a", args=(), kwargs={}, options={})
            )
            if ring:
                broker.client.lpush(doorbell_for("ns", queue_for("cpu")), 1)
            taker.join(10)
            return taken[0] - queued

        assert seconds_to_take(ring=True) < 1.0
        assert seconds_to_take(ring=False) > 1.5  # the wait ran its course: the ring did it
    finally:
        broker.close()
        server.kill()
