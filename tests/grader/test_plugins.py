"""A back end added from outside the core: a fake accelerator that runs on the CPU but is
bounded the way accelerator runs are (resident-memory polling instead of RLIMIT_AS)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from grader import Grader, GraderConfig, Limits, service
from grader.backends import Backend, DeviceInstance, MemoryPolicy, load_backends

from .support import SEED_CODE, SEED_EXPECTED, grade


class FakeAccelerator:
    name = "fakeaccel"
    memory_policy: MemoryPolicy = "resident"
    zygote_setup = "import torch\ntorch.set_num_threads(1)\n"
    warmup = "import builtins\nbuiltins.FAKE_CONTEXT = 'warm'\n"
    prepare = "import builtins\nbuiltins.FAKE_LIMIT = limits['memory_mb']\n"
    probe_code = "import builtins\nprint(builtins.FAKE_CONTEXT)\n"
    probe_expected = "warm"

    def discover(self, config: GraderConfig) -> list[DeviceInstance]:
        return [DeviceInstance(device_type=self.name, label="fake accelerator", concurrency=1,
                               spares=1, env={"FAKE_ACCEL": "1"})]  # fmt: skip


@pytest.fixture(scope="module")
def plugin_grader() -> Iterator[Grader]:
    original = service.load_backends

    def with_fake(names: list[str] | None = None) -> list[Backend]:
        return [*original(["cpu"]), FakeAccelerator()]

    service.load_backends = with_fake
    try:
        with Grader(GraderConfig(workers=1)) as grader:
            yield grader
    finally:
        service.load_backends = original


def test_builtin_backends_are_discovered() -> None:
    assert [backend.name for backend in load_backends()] == ["cpu", "cuda"]


def test_a_new_backend_is_detected_and_advertised(plugin_grader: Grader) -> None:
    assert plugin_grader.devices == ["cpu", "fakeaccel"]


def test_runs_get_the_backends_warm_context_environment_and_limits(plugin_grader: Grader) -> None:
    code = (
        "import builtins, os\n"
        "print(builtins.FAKE_CONTEXT, builtins.FAKE_LIMIT, os.environ['FAKE_ACCEL'])\n"
    )
    result = grade(
        plugin_grader, code, "warm 300 1", devices=["fakeaccel"], limits=Limits(memory_mb=300)
    )
    assert result.verdict == "passed", result


def test_grading_on_both_devices_with_the_placeholder(plugin_grader: Grader) -> None:
    result = grade(plugin_grader, SEED_CODE, SEED_EXPECTED, devices=["cpu", "fakeaccel"])
    assert [run.verdict for run in result.runs] == ["passed", "passed"]
    code = "print('on', 'fakeaccel:0')"
    assert grade(plugin_grader, code, "on {device}", devices=["fakeaccel"]).verdict == "passed"


def test_resident_memory_is_polled_without_an_address_space_limit(plugin_grader: Grader) -> None:
    code = (
        "import resource\n"
        "print(resource.getrlimit(resource.RLIMIT_AS)[0] == resource.RLIM_INFINITY)\n"
        "chunks = []\n"
        "while True:\n"
        "    chunks.append(bytearray(16 * 2**20))\n"
    )
    limits = Limits(memory_mb=200, wall_time_s=10)
    result = grade(plugin_grader, code, "True", devices=["fakeaccel"], limits=limits)
    run = result.runs[0]
    assert run.verdict == "memory_limit", run
    assert run.stdout == "True\n"
    assert run.duration_ms < 5000
