"""The cgroups a grader makes for its runs: limits as asked, nothing left behind, and a grader
that may not grade without them refuses to."""

from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path

import pytest

from grader import Grader, GraderConfig
from grader.cgroups import PREFIX, Cgroups, CgroupUnavailable

from .support import SEED_CODE, SEED_EXPECTED, grade

# The cgroups a Grader makes for its runs, on this host.
pytestmark = pytest.mark.sandbox


def cgroups_or_skip() -> Cgroups:
    try:
        return Cgroups.create()
    except CgroupUnavailable as exc:
        pytest.skip(f"this host gives no cgroups: {exc}")


def test_a_run_cgroup_has_the_limits_asked_for_and_goes_away() -> None:
    cgroups = cgroups_or_skip()
    try:
        run = cgroups.new_run(memory_mb=300, processes=7)
        budget = (300 + 64) * 1024 * 1024
        if run.version == 1:
            assert int((run.memory / "memory.limit_in_bytes").read_text()) == budget
        else:
            assert int((run.memory / "memory.max").read_text()) == budget
        assert (run.pids / "pids.max").read_text().strip() == "8"
        run.set_limits(memory_mb=100, processes=3)
        assert (run.pids / "pids.max").read_text().strip() == "4"
        assert run.oom_kills() == 0
        fds = run.open_procs()
        assert len(fds) == len(run.dirs)
        for fd in fds:
            os.close(fd)
        cgroups.discard(run)
        assert not any(directory.exists() for directory in run.dirs)
    finally:
        cgroups.close()
    assert not any(parent.exists() for parent in cgroups.parents.values())


def test_what_a_dead_grader_left_is_swept_at_the_next_start() -> None:
    cgroups = cgroups_or_skip()
    parents = list(cgroups.parents.values())
    cgroups.close()
    dead = max(int(entry) for entry in os.listdir("/proc") if entry.isdigit()) + 100_000
    leftovers = [parent.parent / f"{PREFIX}{dead}-0" for parent in parents]
    for leftover in leftovers:
        (leftover / "run-1").mkdir(parents=True)
    Cgroups.create().close()
    assert not any(leftover.exists() for leftover in leftovers)


def test_a_closing_grader_waits_for_its_last_runs_processes_to_leave() -> None:
    """A run ended as its grader closes still has processes on their way out. Its cgroups
    and the grader's go once they have left: nothing is left behind on the host."""
    cgroups = cgroups_or_skip()
    run = cgroups.new_run(memory_mb=100, processes=3)
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        for fd in run.open_procs():
            try:
                os.write(fd, str(sleeper.pid).encode())
            finally:
                os.close(fd)
        cgroups.discard(run)  # busy: the sleeper is in it
        assert all(directory.exists() for directory in run.dirs)

        def leave() -> None:
            sleeper.kill()
            sleeper.wait()

        leaving = threading.Timer(0.3, leave)
        leaving.start()
        cgroups.close()
        leaving.join()
    finally:
        sleeper.kill()
        sleeper.wait()
    assert not any(directory.exists() for directory in run.dirs)
    assert not any(parent.exists() for parent in cgroups.parents.values())


def test_the_policy_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRADER_CGROUPS", "optional")
    assert GraderConfig().cgroups == "optional"
    monkeypatch.setenv("GRADER_CGROUPS", "sometimes")
    with pytest.raises(ValueError, match="GRADER_CGROUPS"):
        GraderConfig()


def test_runs_are_graded_inside_their_own_cgroup(grader: Grader) -> None:
    if grader.cgroups is None:
        pytest.skip("this host gives no cgroups")
    parent = Path(grader.cgroups.parents.get("memory") or grader.cgroups.parents["unified"])
    result = grade(grader, SEED_CODE, SEED_EXPECTED)
    assert result.verdict == "passed", result
    # Only the spare runs waiting for a job hold a cgroup: finished runs leave none behind.
    spares = sum(pool.instance.spares for pools in grader._groups.values() for pool in pools)
    assert len([child for child in parent.iterdir() if child.is_dir()]) <= spares + 1
