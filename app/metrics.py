"""Prometheus metrics, in prometheus_client's multiprocess mode: every web process writes its
samples to files in one directory and a scrape, whichever process answers it, adds them up.

The directory is `PROMETHEUS_MULTIPROC_DIR` when the operator gives one (shared by the
processes they start on one host; they empty it before starting them). Otherwise this
process makes a fresh one of its own in the temporary directory, so it starts clean and
holds only this process's samples. prometheus_client decides at import whether it works
in multiprocess mode, so the directory is chosen before it is imported.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

DIRECTORY_ENV = "PROMETHEUS_MULTIPROC_DIR"
# Set alongside DIRECTORY_ENV when this module made the directory: a child process that
# inherits both knows the directory is its parent's, not one an operator shares out.
OWN_DIRECTORY_ENV = "TENSORCAMP_OWN_METRICS_DIR"


def _remove_own_directory(path: Path, pid: int) -> None:
    if os.getpid() == pid:  # a forked child inherits atexit handlers; it owns nothing
        shutil.rmtree(path, ignore_errors=True)


def _choose_directory() -> Path:
    given = os.environ.get(DIRECTORY_ENV)
    if given and given != os.environ.get(OWN_DIRECTORY_ENV):
        Path(given).mkdir(parents=True, exist_ok=True)
        return Path(given)
    path = Path(tempfile.mkdtemp(prefix="tensorcamp-metrics-"))
    os.environ[DIRECTORY_ENV] = os.environ[OWN_DIRECTORY_ENV] = str(path)
    atexit.register(_remove_own_directory, path, os.getpid())
    return path


DIRECTORY = _choose_directory()

# Imported after the directory is chosen: see the module's docstring.
from prometheus_client import (  # noqa: E402
    CONTENT_TYPE_PLAIN_0_0_4,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    values,
)
from prometheus_client.metrics_core import Metric  # noqa: E402
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead  # noqa: E402
from sqlalchemy import event  # noqa: E402
from sqlalchemy.ext.asyncio import AsyncSession  # noqa: E402
from sqlalchemy.orm import Session  # noqa: E402

from app.models.states import RunVerdict  # noqa: E402

if values.ValueClass is values.MutexValue:  # someone imported prometheus_client before us
    values.ValueClass = values.get_value_class()

CONTENT_TYPE = CONTENT_TYPE_PLAIN_0_0_4  # what generate_latest writes, read by every Prometheus
GRADING_BUCKETS_S = (0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0)
HTTP_BUCKETS_S = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
# Runs that measure no grading: nothing ran, or it broke.
NOT_RUN = frozenset({RunVerdict.NOT_GRADED, RunVerdict.ERROR})

SUBMISSIONS = Counter(
    "tensorcamp_submissions",
    "Submissions finished, by mode (grade or run), status and verdict.",
    ["mode", "status", "verdict"],
)
GRADING_LATENCY = Histogram(
    "tensorcamp_grading_latency_seconds",
    "Seconds from a submission to the verdict of its run on each device.",
    ["device"],
    buckets=GRADING_BUCKETS_S,
)
RUN_DURATION = Histogram(
    "tensorcamp_run_duration_seconds",
    "Seconds the student's code ran on each device, as the grader measured it.",
    ["device"],
    buckets=GRADING_BUCKETS_S,
)
QUEUE_DEPTH = Gauge(
    "tensorcamp_queue_depth",
    "Jobs waiting for a grader, per device.",
    ["device"],
    multiprocess_mode="livesum",
)
HTTP_DURATION = Histogram(
    "tensorcamp_http_request_duration_seconds",
    "Seconds to answer an HTTP request, by method, route template and status class.",
    ["method", "route", "status"],
    buckets=HTTP_BUCKETS_S,
)
HTTP_IN_PROGRESS = Gauge(
    "tensorcamp_http_requests_in_progress",
    "HTTP requests being answered now.",
    multiprocess_mode="livesum",
)


# --- recorded once the transaction that did it commits ---------------------------------------

_PENDING = "tensorcamp.metrics.pending"


def _after_commit(session: AsyncSession, record: Callable[[], None]) -> None:
    """Counted when the transaction commits, never for one rolled back (and then done again)."""
    session.info.setdefault(_PENDING, []).append(record)


@event.listens_for(Session, "after_commit")
def _record_committed(session: Session) -> None:
    for record in session.info.pop(_PENDING, ()):
        record()


@event.listens_for(Session, "after_rollback")
def _drop_rolled_back(session: Session) -> None:
    session.info.pop(_PENDING, None)


def submission_finished(
    session: AsyncSession, *, mode: str, status: str, verdict: str | None
) -> None:
    child = SUBMISSIONS.labels(mode=mode, status=status, verdict=verdict or "none")
    _after_commit(session, child.inc)


def runs_recorded(
    session: AsyncSession,
    *,
    submitted_at: datetime,
    recorded_at: datetime,
    runs: Iterable[Mapping[str, Any]],
) -> None:
    latency_s = max((recorded_at - submitted_at).total_seconds(), 0.0)
    for run in runs:
        if run["verdict"] in NOT_RUN:
            continue
        device = run["device"]
        _after_commit(session, _observer(GRADING_LATENCY, device, latency_s))
        _after_commit(session, _observer(RUN_DURATION, device, run["duration_ms"] / 1000))


def _observer(histogram: Histogram, device: str, seconds: float) -> Callable[[], None]:
    child = histogram.labels(device=device)
    return lambda: child.observe(seconds)


# --- the embedded grading queue ----------------------------------------------------------------


class MeasuredQueue(asyncio.Queue[int]):
    """A queue of submission ids whose length is tensorcamp_queue_depth{device}. Each
    process publishes its own queue; a scrape adds up those of the processes alive."""

    def __init__(self, device: str = "cpu") -> None:
        super().__init__()
        self._depth = QUEUE_DEPTH.labels(device=device)
        self._depth.set(0)

    # asyncio.Queue's hooks for subclasses: every put and get goes through them.
    def _put(self, item: int) -> None:
        super()._put(item)
        self._depth.set(self.qsize())

    def _get(self) -> int:
        item = super()._get()
        self._depth.set(self.qsize())
        return item


# --- a scrape ----------------------------------------------------------------------------------

_LIVE_FILE = re.compile(r"^gauge_live\w+_(\d+)\.db$")


def forget_dead_processes(directory: Path = DIRECTORY) -> None:
    """Drop the live gauges of processes that are gone (killed, or ended without saying so):
    what they were doing is no longer being done. Their counters stay, as they must."""
    for path in directory.glob("gauge_live*_*.db"):
        found = _LIVE_FILE.match(path.name)
        if found is None:
            continue
        pid = int(found[1])
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            mark_process_dead(pid, str(directory))
        except PermissionError:  # alive, under another user
            pass


def _process_ended(pid: int) -> None:
    """At exit: this process's live gauges stop counting (a killed one's are dropped by the
    next scrape). Not at the end of an app's lifespan: the process may serve on."""
    if os.getpid() == pid:
        with contextlib.suppress(FileNotFoundError):
            mark_process_dead(pid, str(DIRECTORY))


atexit.register(_process_ended, os.getpid())


def exposition(extra: Iterable[Metric] = (), directory: Path = DIRECTORY) -> bytes:
    """The text format of every process's samples, plus `extra`: families this scrape read
    from shared state (the database, Redis), the same whichever process reads them."""
    forget_dead_processes(directory)
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=str(directory))
    snapshot = list(extra)
    registry.register(_Fixed(snapshot))
    return generate_latest(registry)


class _Fixed:
    def __init__(self, families: list[Metric]) -> None:
        self.families = families

    def collect(self) -> Iterable[Metric]:
        return self.families
