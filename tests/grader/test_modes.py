"""Failing closed when the sandbox cannot be built, the unsafe dev mode, and recovering from a
dead zygote."""

from __future__ import annotations

import logging
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader import Grader, GraderConfig, Job

from .support import SEED_CODE, SEED_EXPECTED, grade, only_run

# Each test starts a Grader (or has one refuse to start) of its own.
pytestmark = pytest.mark.sandbox


@pytest.fixture
def var_tmp() -> Iterator[Path]:
    """A directory outside /tmp, which every run covers with its own."""
    path = Path(tempfile.mkdtemp(dir="/var/tmp"))
    yield path
    shutil.rmtree(path)


def assert_fails_closed(config: GraderConfig, reason: str) -> None:
    started = time.monotonic()
    with Grader(config) as grader:
        assert grader.devices == ["cpu"]
        result = grade(grader, SEED_CODE, SEED_EXPECTED)
        assert result.status == "error" and result.verdict is None
        run = only_run(result)
        assert run.verdict == "error"
        assert reason in (run.detail or ""), run.detail
        assert reason in grader.problems["cpu"]
    assert time.monotonic() - started < 30


def test_missing_bubblewrap_fails_closed() -> None:
    assert_fails_closed(GraderConfig(bwrap="/nonexistent/bwrap"), "bubblewrap not found")


def test_bubblewrap_refused_by_the_kernel_fails_closed(tmp_path: Path) -> None:
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    assert_fails_closed(GraderConfig(bwrap=str(fake)), "No permissions to create new namespace")


def test_refuses_to_expose_a_protected_interpreter_location() -> None:
    config = GraderConfig(hidden_paths=[sys.prefix])
    assert_fails_closed(config, "refusing to expose")


def test_unsafe_mode_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRADER_UNSAFE_DEV_MODE", "1")
    assert GraderConfig().unsafe_dev_mode is True
    monkeypatch.setenv("GRADER_UNSAFE_DEV_MODE", "0")
    assert GraderConfig().unsafe_dev_mode is False


def test_unsafe_dev_mode_runs_without_isolation_and_says_so(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="grader")
    with Grader(GraderConfig(unsafe_dev_mode=True, workers=1)) as grader:
        assert "UNSAFE DEV MODE" in caplog.text
        assert grade(grader, SEED_CODE, SEED_EXPECTED).verdict == "passed"
        run = grader.run("import os\nprint(os.getuid(), os.path.exists('/work'))")
        assert run.stdout.split() == [str(os.getuid()), str(os.path.exists("/work"))]


def test_a_dead_zygote_is_replaced_and_the_job_is_not_charged() -> None:
    with Grader(GraderConfig(workers=1, spares=1)) as grader:
        pool = grader._groups["cpu"][0]
        zygote = pool._zygote
        assert zygote is not None
        zygote.process.kill()
        verdicts = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            result = grader.grade(Job(id="r", code=SEED_CODE, expected_output=SEED_EXPECTED))
            verdicts.append(result.runs[0].verdict)
            if result.verdict == "passed":
                break
            time.sleep(0.2)
        assert verdicts[-1] == "passed"
        assert set(verdicts) <= {"error", "passed"}
        assert pool._zygote is not zygote


def test_extra_read_only_paths_are_readable_and_nothing_else(var_tmp: Path) -> None:
    tmp_path = var_tmp
    dataset = tmp_path / "datasets" / "mnist"
    dataset.mkdir(parents=True)
    (dataset / "train.csv").write_text("1,2,3\n")
    (tmp_path / "next-to-it.txt").write_text("not shared")
    code = (
        f"print(open({str(dataset / 'train.csv')!r}).read().strip())\n"
        "try:\n"
        f"    open({str(dataset / 'new.csv')!r}, 'w')\n"
        "except OSError as e:\n"
        "    print(e.errno)\n"
        f"print(__import__('os').path.exists({str(tmp_path / 'next-to-it.txt')!r}))\n"
    )
    with Grader(GraderConfig(workers=1, extra_ro_paths=[str(dataset)])) as grader:
        assert grade(grader, code, "1,2,3\n30\nFalse").verdict == "passed"


def test_extra_paths_may_not_expose_protected_ones() -> None:
    assert_fails_closed(GraderConfig(extra_ro_paths=["/root"]), "refusing to expose")
    assert_fails_closed(GraderConfig(extra_ro_paths=["/tmp/x"]), "each run mounts its own")


def test_command_line_run_and_check(tmp_path: Path) -> None:
    import json
    import subprocess

    script = tmp_path / "solution.py"
    script.write_text("print(6 * 7)\n")
    repo = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(repo)}
    ran = subprocess.run(
        [sys.executable, "-m", "grader", "run", str(script)],
        capture_output=True, text=True, env=env, cwd=repo, timeout=120,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    run = json.loads(ran.stdout)
    assert (run["verdict"], run["stdout"], run["device"]) == ("passed", "42\n", "cpu")
    checked = subprocess.run(
        [sys.executable, "-m", "grader", "check"],
        capture_output=True, text=True, env=env, cwd=repo, timeout=120,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "devices: cpu" in checked.stdout and "self-test on cpu: passed" in checked.stdout
