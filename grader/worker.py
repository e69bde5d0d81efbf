"""A grader worker: `python -m grader.worker`. Takes jobs for the devices this host really
has from Redis (Dramatiq), runs them in the sandbox, and reports events on a Redis stream.
It holds no database credentials and imports nothing from the app.

Environment: REDIS_URL (required), GRADER_NAMESPACE, GRADER_WORKERS (parallel CPU runs),
GRADER_DEVICES (comma-separated subset to serve, e.g. "cpu" for a CPU-only worker),
GRADER_WORKER_ID, GRADER_POLL_MS (how long an idle worker waits on its queues' doorbell
before it looks for jobs anyway, default 50), GRADER_UNSAFE_DEV_MODE.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import threading
import time
import uuid
from typing import Any

import dramatiq
import redis
from dramatiq.brokers.redis import RedisBroker, _RedisConsumer
from dramatiq.middleware import AgeLimit, Callbacks, Pipelines, ShutdownNotifications, TimeLimit

from .config import GraderConfig
from .contract import Run
from .queueing import (
    ALIVE_EVERY_S,
    DEFAULT_NAMESPACE,
    WORKER_TTL_S,
    RunEvent,
    RunRequest,
    actor_for,
    doorbell_for,
    queue_for,
    results_stream,
    workers_key,
)
from .service import Grader

log = logging.getLogger("grader.worker")
STREAM_MAXLEN = 100_000


class EventSender:
    """Puts events on the results stream, riding out a Redis restart instead of losing them."""

    def __init__(self, client: redis.Redis, namespace: str, give_up_after_s: float = 300.0):
        self.client = client
        self.stream = results_stream(namespace)
        self.give_up_after_s = give_up_after_s

    def send(self, event: RunEvent, *, patient: bool = True) -> bool:
        deadline = time.monotonic() + (self.give_up_after_s if patient else 0)
        delay = 0.2
        while True:
            try:
                self.client.xadd(
                    self.stream,
                    {"event": event.model_dump_json()},
                    maxlen=STREAM_MAXLEN,
                    approximate=True,
                )
                return True
            except redis.RedisError as exc:
                if time.monotonic() >= deadline:
                    log.error("dropping %s event for job %s: %s", event.event, event.job_id, exc)
                    return False
                time.sleep(delay)
                delay = min(delay * 2, 5.0)


class Presence:
    """Advertises this worker's devices while it runs, so the app knows who can take what."""

    def __init__(self, client: redis.Redis, namespace: str, worker_id: str, devices: list[str]):
        self.client = client
        self.namespace = namespace
        self.worker_id = worker_id
        self.devices = devices
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="presence", daemon=True)

    def start(self) -> None:
        self._announce()
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        for device in self.devices:
            with contextlib.suppress(redis.RedisError):
                self.client.zrem(workers_key(self.namespace, device), self.worker_id)

    def _announce(self) -> None:
        expires = time.time() + WORKER_TTL_S
        for device in self.devices:
            try:
                self.client.zadd(workers_key(self.namespace, device), {self.worker_id: expires})
            except redis.RedisError as exc:
                log.warning("cannot announce presence: %s", exc)

    def _loop(self) -> None:
        while not self._stop.wait(WORKER_TTL_S / 3):
            self._announce()


def make_handler(grader: Grader, sender: EventSender, worker_id: str, device: str) -> Any:
    def handle(request: dict[str, Any]) -> None:
        try:
            req = RunRequest.model_validate(request)
        except ValueError as exc:
            # Answered, not dropped: a job nobody reports on would be re-sent forever.
            job_id = (
                str((request.get("job") or {}).get("id", "")) if isinstance(request, dict) else ""
            )
            log.error("malformed job %r: %s", job_id, exc)
            if job_id:
                sender.send(
                    RunEvent(
                        job_id=job_id,
                        device=device,
                        delivery=0,
                        event="finished",
                        worker=worker_id,
                        run=Run.without_output(
                            device, "error", "This worker could not read the job it was sent."
                        ),
                    )
                )
            return
        job = req.job.model_copy(update={"devices": [device]})

        def event(kind: str, **extra: Any) -> RunEvent:
            return RunEvent(
                job_id=job.id,
                device=device,
                delivery=req.delivery,
                event=kind,
                worker=worker_id,
                **extra,
            )

        sender.send(event("started"), patient=False)
        done = threading.Event()

        def keep_alive() -> None:
            while not done.wait(ALIVE_EVERY_S):
                sender.send(event("alive"), patient=False)

        alive = threading.Thread(target=keep_alive, daemon=True)
        alive.start()
        try:
            if req.grade:
                run = grader.grade(job).runs[0]
            else:
                run = grader.run(job.code, device, job.limits, job.setup)
        except Exception:
            log.exception("grading job %s on %s failed", job.id, device)
            run = Run.without_output(
                device, "error", "The grader failed while running this submission."
            )
        finally:
            done.set()
        sender.send(event("finished", run=run))

    handle.__name__ = actor_for(device)
    return handle


class _DoorbellConsumer(_RedisConsumer):
    """Dramatiq's Redis consumer, but idle it waits on the queue's doorbell (BLPOP, rung by
    the app after each job it queues: grader.queueing.doorbell_for) for up to its timeout,
    instead of sleeping between looks: a job queued for an idle worker starts at once, and
    an idle worker costs Redis one blocked call per timeout. A worker that cannot take more
    jobs (its prefetch is full) sleeps as Dramatiq's does, leaving the rings to idle ones."""

    def __init__(self, broker: RedisBroker, queue_name: str, prefetch: int, timeout: int):
        super().__init__(broker, queue_name, prefetch, 1)  # Dramatiq's own sleep: 1 ms
        self.idle_s = timeout / 1000
        self.doorbell = doorbell_for(broker.namespace, queue_name)

    def __next__(self) -> Any:
        message = super().__next__()
        if message is None:
            if self.outstanding_message_count < self.prefetch:
                try:
                    self.broker.client.blpop([self.doorbell], timeout=self.idle_s)
                except redis.ConnectionError as error:
                    raise dramatiq.ConnectionClosed(error) from None
            else:
                time.sleep(self.idle_s)
        return message


class DoorbellBroker(RedisBroker):
    @property
    def consumer_class(self) -> type[_DoorbellConsumer]:
        return _DoorbellConsumer


def build_broker(url: str, namespace: str) -> RedisBroker:
    # No Retries middleware: a failed run is reported as an event and the app decides.
    middleware = [
        AgeLimit(),
        TimeLimit(time_limit=15 * 60 * 1000),
        ShutdownNotifications(),
        Callbacks(),
        Pipelines(),
    ]
    return DoorbellBroker(
        url=url, namespace=namespace, middleware=middleware, heartbeat_timeout=15_000
    )


def main() -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    url = os.environ.get("REDIS_URL")
    if not url:
        log.error("REDIS_URL is not set: a worker needs the queue")
        return 2
    namespace = os.environ.get("GRADER_NAMESPACE", DEFAULT_NAMESPACE)
    worker_id = (
        os.environ.get("GRADER_WORKER_ID") or f"{socket.gethostname()}-{uuid.uuid4().hex[:6]}"
    )
    wanted = {d.strip() for d in os.environ.get("GRADER_DEVICES", "").split(",") if d.strip()}
    threads = int(os.environ.get("GRADER_WORKERS", "2"))

    grader = Grader(GraderConfig(workers=threads))
    grader.start()
    devices = [d for d in grader.devices if not wanted or d in wanted]
    if grader.problems:
        for device, problem in grader.problems.items():
            log.warning("device %s unavailable: %s", device, problem)
    if "cpu" in grader.problems and "cpu" in devices:
        devices.remove("cpu")  # a broken sandbox must not take jobs it would only fail
    if not devices:
        log.error("no working device to serve; exiting")
        grader.close()
        return 1

    client = redis.Redis.from_url(url)
    broker = build_broker(url, namespace)
    dramatiq.set_broker(broker)
    sender = EventSender(client, namespace)
    for device in devices:
        register = dramatiq.actor(
            actor_name=actor_for(device), queue_name=queue_for(device), broker=broker
        )
        register(make_handler(grader, sender, worker_id, device))
    runs_at_once = threads + sum(1 for d in devices if d != "cpu")
    # An idle consumer waits on its queue's doorbell for up to worker_timeout, then looks
    # anyway: that is the worst added latency of a job queued by an app that did not ring.
    poll_ms = int(os.environ.get("GRADER_POLL_MS", "50"))
    worker = dramatiq.Worker(
        broker,
        queues={queue_for(d) for d in devices},
        worker_threads=runs_at_once,
        worker_timeout=poll_ms,
    )
    presence = Presence(client, namespace, worker_id, devices)
    stopping = threading.Event()

    def stop(_signum: int, _frame: object) -> None:
        stopping.set()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    worker.start()
    presence.start()
    log.info("worker %s serving %s in namespace %s", worker_id, ", ".join(devices), namespace)
    stopping.wait()
    log.info("stopping: finishing the runs in progress")
    presence.stop()
    worker.stop()
    grader.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
