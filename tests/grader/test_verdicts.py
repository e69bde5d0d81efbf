"""Every verdict, through the real sandbox, and the seed exercise."""

from __future__ import annotations

import pytest

from grader import Comparison, Grader, Limits

from .support import HARD_CODED_CUDA, QUICK, SEED_CODE, SEED_EXPECTED, grade, only_run


def test_seed_exercise_passes_on_cpu(grader: Grader) -> None:
    result = grade(grader, SEED_CODE, SEED_EXPECTED)
    assert (result.status, result.verdict) == ("done", "passed")
    run = only_run(result)
    assert run.device == "cpu" and run.exit_code == 0 and run.diff == ""
    assert run.stdout == SEED_EXPECTED + "\n"


def test_hard_coded_cuda_fails_on_cpu_with_the_hint(grader: Grader) -> None:
    run = only_run(grade(grader, HARD_CODED_CUDA, SEED_EXPECTED))
    assert run.verdict == "runtime_error"
    assert run.hint is not None and 'torch.cuda.is_available() else "cpu"' in run.hint
    assert run.stderr.startswith('Traceback (most recent call last):\n  File "main.py"')
    assert "site-packages" not in run.stderr and "runner.py" not in run.stderr


def test_wrong_output_carries_a_diff(grader: Grader) -> None:
    run = only_run(grade(grader, "print([[3.0, 3.0, 3.0]])\nprint(False)", SEED_EXPECTED))
    assert run.verdict == "wrong_output"
    assert "-True" in run.diff and "+False" in run.diff


def test_runtime_error_trims_the_traceback(grader: Grader) -> None:
    code = "import torch\ndef f():\n    return torch.ones(2) @ torch.ones(3)\nf()\n"
    run = only_run(grade(grader, code, ""))
    assert run.verdict == "runtime_error" and run.exit_code == 1
    assert run.hint is None
    lines = run.stderr.strip().splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert lines[-1].startswith("RuntimeError:")
    assert all("File" not in line or "main.py" in line for line in lines)


@pytest.mark.parametrize(
    ("code", "exit_code"), [("import sys\nsys.exit(3)", 3), ("raise SystemExit('bye')", 1)]
)
def test_non_zero_exit_is_a_runtime_error(grader: Grader, code: str, exit_code: int) -> None:
    run = only_run(grade(grader, code, ""))
    assert (run.verdict, run.exit_code) == ("runtime_error", exit_code)


def test_syntax_error(grader: Grader) -> None:
    run = only_run(grade(grader, "def f(:\n    pass\n", ""))
    assert run.verdict == "runtime_error"
    assert "SyntaxError" in run.stderr and 'File "main.py", line 1' in run.stderr


def test_empty_code_is_graded_like_any_other(grader: Grader) -> None:
    assert grade(grader, "", "").verdict == "passed"
    assert grade(grader, "", "something").verdict == "wrong_output"


def test_timeout_on_wall_time(grader: Grader) -> None:
    run = only_run(grade(grader, "import time\ntime.sleep(60)", "", limits=QUICK))
    assert run.verdict == "timeout"
    assert 1900 <= run.duration_ms < 4000


def test_timeout_on_cpu_time(grader: Grader) -> None:
    limits = Limits(wall_time_s=10, cpu_time_s=1)
    run = only_run(grade(grader, "while True:\n    pass", "", limits=limits))
    assert run.verdict == "timeout"
    assert "CPU time" in (run.detail or "")  # the CPU limit, not the 10 s wall limit


def test_memory_limit(grader: Grader) -> None:
    run = only_run(grade(grader, "x = bytearray(3 * 1024**3)", "", limits=Limits(memory_mb=512)))
    assert run.verdict == "memory_limit"


def test_output_limit(grader: Grader) -> None:
    limits = Limits(output_kb=4)
    run = only_run(grade(grader, "while True:\n    print('y' * 100)", "", limits=limits))
    assert run.verdict == "output_limit"
    assert len(run.stdout) == 4096


def test_missing_device_is_not_graded(grader: Grader) -> None:
    devices = ["cpu", "tpu"]
    result = grade(grader, SEED_CODE, SEED_EXPECTED, devices=devices)
    cpu, tpu = result.runs
    assert cpu.verdict == "passed"
    assert (tpu.verdict, tpu.detail) == ("not_graded", "not graded on tpu here")
    assert (result.status, result.verdict) == ("done", "passed")


def test_only_missing_devices_is_an_error(grader: Grader) -> None:
    result = grade(grader, SEED_CODE, SEED_EXPECTED, devices=["tpu"])
    assert result.status == "error" and result.verdict is None
    assert "not graded on tpu here" in (result.detail or "")


def test_device_placeholder_end_to_end(grader: Grader) -> None:
    code = "import torch\nprint(torch.zeros(1).device)\nprint(torch.zeros(1).device.type)"
    assert grade(grader, code, "{device}\n{device_type}").verdict == "passed"


def test_numeric_comparison_end_to_end(grader: Grader) -> None:
    code = "import torch\nprint(torch.tensor([1/3, 2/3]))"
    result = grade(
        grader, code, "tensor([0.3333, 0.6667])", comparison=Comparison(mode="numeric", rtol=1e-3)
    )
    assert result.verdict == "passed"


def test_broken_exercise_pattern_is_an_error_not_the_students_fault(grader: Grader) -> None:
    result = grade(grader, "print('x')", "(", comparison=Comparison(mode="patterns"))
    assert result.status == "error"
    assert "not a valid pattern" in (result.runs[0].detail or "")


def test_run_without_grading(grader: Grader) -> None:
    run = grader.run("print('hello')")
    assert (run.verdict, run.stdout, run.diff) == ("passed", "hello\n", "")
    assert grader.run("raise ValueError").verdict == "runtime_error"


def test_each_run_starts_fresh(grader: Grader) -> None:
    first = grader.run(
        "import torch\n"
        "open('state', 'w').write('1')\n"
        "torch.manual_seed(0)\n"
        "print(torch.rand(1).item())\n"
    )
    second = grader.run("import os, torch\nprint(os.path.exists('state'), torch.rand(1).item())")
    assert first.verdict == second.verdict == "passed"
    exists, value = second.stdout.split()
    assert exists == "False"
    assert value != first.stdout.strip()


def test_student_sees_a_normal_main(grader: Grader) -> None:
    code = (
        "import os, sys\n"
        "print(__name__, os.path.basename(__file__), sys.argv, os.getcwd())\n"
        "print(open('main.py').read().splitlines()[0])\n"
    )
    run = grader.run(code)
    assert run.stdout.splitlines() == ["__main__ main.py ['main.py'] /sandbox", "import os, sys"]


def test_concurrent_grading(grader: Grader) -> None:
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(6) as pool:
        results = list(pool.map(lambda _: grade(grader, SEED_CODE, SEED_EXPECTED), range(12)))
    assert {result.verdict for result in results} == {"passed"}
