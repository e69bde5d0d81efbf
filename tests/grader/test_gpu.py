"""CUDA runs; skipped unless this host has an NVIDIA GPU that the host's torch can use."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
import torch

from grader import Grader, GraderConfig, Limits

from .support import HARD_CODED_CUDA, SEED_CODE, SEED_EXPECTED, grade

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.sandbox,
    pytest.mark.skipif(
        not (torch.cuda.is_available() and os.path.exists("/dev/nvidia0")),
        reason="needs an NVIDIA GPU",
    ),
]


@pytest.fixture(scope="module")
def gpu_grader() -> Iterator[Grader]:
    with Grader(GraderConfig(workers=2)) as started:
        assert "cuda" in started.devices, started.problems
        yield started


def test_seed_exercise_passes_on_cpu_and_cuda(gpu_grader: Grader) -> None:
    result = grade(gpu_grader, SEED_CODE, SEED_EXPECTED, devices=["cpu", "cuda"])
    assert [run.verdict for run in result.runs] == ["passed", "passed"]
    assert result.verdict == "passed"


def test_hard_coded_cuda_passes_on_cuda_but_fails_the_cpu_run(gpu_grader: Grader) -> None:
    result = grade(gpu_grader, HARD_CODED_CUDA, SEED_EXPECTED, devices=["cpu", "cuda"])
    cpu, cuda = result.runs
    assert cuda.verdict == "passed"
    assert cpu.verdict == "runtime_error" and cpu.hint
    assert result.verdict == "runtime_error"


def test_cuda_run_sees_one_gpu_and_its_placeholder(gpu_grader: Grader) -> None:
    code = (
        "import torch\n"
        "x = torch.ones(1, device='cuda')\n"
        "print(torch.cuda.device_count())\n"
        "print(x.device)\n"
    )
    assert grade(gpu_grader, code, "1\n{device}", devices=["cuda"]).verdict == "passed"


def test_cuda_memory_is_bounded(gpu_grader: Grader) -> None:
    code = "import torch\nx = torch.empty(2**34, device='cuda')"
    result = grade(gpu_grader, code, "", devices=["cuda"], limits=Limits(memory_mb=512))
    assert result.verdict == "memory_limit"


def test_host_memory_of_cuda_runs_is_bounded(gpu_grader: Grader) -> None:
    code = "chunks = []\nwhile True:\n    chunks.append(bytearray(64 * 2**20))"
    result = grade(gpu_grader, code, "", devices=["cuda"], limits=Limits(memory_mb=512))
    assert result.verdict == "memory_limit"


def test_cuda_run_is_isolated(gpu_grader: Grader) -> None:
    code = "import os\nprint(sorted(os.listdir('/dev')))\nprint(os.getuid())"
    result = grade(gpu_grader, code, "", devices=["cuda"])
    run = result.runs[0]
    devices = eval(run.stdout.splitlines()[0])
    assert [name for name in devices if name.startswith("nvidia") and name[6:].isdigit()] != []
    assert run.stdout.splitlines()[1] == "1000"
