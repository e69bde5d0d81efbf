"""One warm Grader per test module: starting one costs about two seconds."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from grader import Grader, GraderConfig

# Planted in the environment of the process that starts the sandboxes; no run may see it.
HOST_SECRET = "tc-host-secret-7f3a9c"
os.environ["TC_GRADER_TEST_SECRET"] = HOST_SECRET


@pytest.fixture(scope="module")
def grader() -> Iterator[Grader]:
    with Grader(GraderConfig(workers=2, unsafe_dev_mode=False)) as started:
        assert "cpu" in started.devices
        assert "cpu" not in started.problems, started.problems
        yield started
