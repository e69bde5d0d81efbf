"""The pytest plugin of bench/suite_time.py (`-p suite_time_plugin`, bench/ on PYTHONPATH):
in each process that runs tests (each pytest-xdist worker), one line per test to
$SUITE_TIME_DIR/timeline-<worker>.jsonl: [worker, node id, kind, start, end], the time from
its setup to its teardown."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from typing import IO

import pytest

from tests.conftest import BROWSER_TESTS, backends_of

WORKER = os.environ.get("PYTEST_XDIST_WORKER", "main")
GRADER_TESTS = BROWSER_TESTS.parent / "grader"
_out: list[IO[str]] = []


def kind(item: pytest.Item) -> str:
    if item.path.is_relative_to(BROWSER_TESTS):
        return "browser"
    if item.path.is_relative_to(GRADER_TESTS):
        return "grader"
    if backends_of(item):
        return "app, once per database backend"
    return "app, other (processes, waits)"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    started = time.time()
    try:
        return (yield)
    finally:
        if not _out:
            folder = os.environ["SUITE_TIME_DIR"]
            _out.append(open(os.path.join(folder, f"timeline-{WORKER}.jsonl"), "a"))  # noqa: SIM115
        line = [WORKER, item.nodeid, kind(item), started, time.time()]
        _out[0].write(json.dumps(line) + "\n")
        _out[0].flush()
