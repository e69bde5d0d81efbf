"""A cgroup handed to the grader by root (`python -m grader.delegate`, GRADER_CGROUP_PARENT), as
the compose file's workers get theirs, and a worker that must not grade without a cgroup per
run refusing to serve when it cannot make them."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader import Grader, GraderConfig
from grader.cgroups import PARENT_ENV, Cgroups, CgroupUnavailable, delegate

from .support import SEED_CODE, SEED_EXPECTED, grade

NOBODY = 65534
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def delegated(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A cgroup of this host made by root and given to nobody; removed afterwards."""
    if os.geteuid() != 0:
        pytest.skip("making a cgroup for someone else needs root")
    name = f"/tensorcamp-test-{uuid.uuid4().hex[:8]}.slice"
    try:
        delegate(name, NOBODY, NOBODY)
    except CgroupUnavailable as exc:
        pytest.skip(f"this host gives no cgroups: {exc}")
    monkeypatch.setenv(PARENT_ENV, name)
    yield name
    top = Path("/sys/fs/cgroup")
    for directory in [*top.glob(name.strip("/")), *top.glob(f"*/{name.strip('/')}")]:
        directory.rmdir()


def test_runs_go_into_the_delegated_cgroup_which_belongs_to_its_owner(delegated: str) -> None:
    cgroups = Cgroups.create()
    try:
        for parent in cgroups.parents.values():
            host = parent.parent
            given = host.parent
            assert given.name == delegated.strip("/"), parent
            assert host.name.startswith("host-"), host
            # What the owner needs to make cgroups there and move its processes in.
            assert given.stat().st_uid == NOBODY
            assert (given / "cgroup.procs").stat().st_uid == NOBODY
        run = cgroups.new_run(memory_mb=200, processes=5)
        assert all(directory.is_dir() for directory in run.dirs)
        cgroups.discard(run)
    finally:
        cgroups.close()
    # This host's directory below the shared cgroup goes with the last grader of the host.
    assert not any(parent.parent.exists() for parent in cgroups.parents.values())


def test_a_delegated_cgroup_that_does_not_exist_is_named_in_the_refusal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    missing = f"/tensorcamp-missing-{uuid.uuid4().hex[:8]}"
    monkeypatch.setenv(PARENT_ENV, missing)
    with pytest.raises(CgroupUnavailable, match=missing.strip("/")):
        Cgroups.create().close()


def test_a_relative_delegated_cgroup_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PARENT_ENV, "tensorcamp.slice")
    with pytest.raises(CgroupUnavailable, match=PARENT_ENV):
        Cgroups.create().close()


def test_a_worker_that_cannot_give_runs_cgroups_refuses_to_serve() -> None:
    # GRADER_CGROUPS unset means required (a worker's default): the worker stops before it
    # ever reaches the queue, saying why.
    env = {key: value for key, value in os.environ.items() if key != "GRADER_CGROUPS"}
    env |= {
        "REDIS_URL": "redis://127.0.0.1:9/0",  # never reached
        PARENT_ENV: f"/tensorcamp-missing-{uuid.uuid4().hex[:8]}",
        "GRADER_DEVICES": "cpu",
    }
    worker = subprocess.run(
        [sys.executable, "-m", "grader.worker"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert worker.returncode == 1, worker.stderr
    assert "runs cannot get a cgroup of their own" in worker.stderr
    assert "no working device to serve" in worker.stderr


def test_a_grader_that_requires_cgroups_fails_closed_without_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(PARENT_ENV, f"/tensorcamp-missing-{uuid.uuid4().hex[:8]}")
    with Grader(GraderConfig(workers=1, cgroups="required")) as grader:
        assert "runs cannot get a cgroup of their own" in grader.problems["cpu"]
        (run,) = grade(grader, SEED_CODE, SEED_EXPECTED).runs
        assert run.verdict == "error" and "cgroup of their own" in (run.detail or ""), run


def test_a_grader_told_cgroups_are_optional_grades_without_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(PARENT_ENV, f"/tensorcamp-missing-{uuid.uuid4().hex[:8]}")
    with Grader(GraderConfig(workers=1, cgroups="optional")) as grader:
        assert grader.cgroups is None
        assert "cpu" not in grader.problems, grader.problems
        assert grade(grader, SEED_CODE, SEED_EXPECTED).verdict == "passed"


# Run as a process of its own, moved into /<name>/child in every hierarchy: like a container
# Docker started under `cgroup_parent: <name>`, it hands over and then uses its cgroup's parent.
_OWN_PARENT_PROBE = """
import os, sys
from pathlib import Path
from grader.cgroups import OWN_PARENT, PARENT_ENV, Cgroups, _mounts, delegate

name, owner = sys.argv[1], int(sys.argv[2])
for mount in _mounts():
    ours = mount.fstype == "cgroup2" or {"memory", "pids", "cpu"} & mount.options
    if mount.root == "/" and ours:
        child = Path(mount.point, name, "child")
        child.mkdir(parents=True)
        (child / "cgroup.procs").write_text(str(os.getpid()))
print(delegate(OWN_PARENT, owner, owner))
os.environ[PARENT_ENV] = OWN_PARENT
cgroups = Cgroups.create()
for parent in cgroups.parents.values():
    assert parent.parent.parent.name == name, parent
    assert parent.parent.parent.stat().st_uid == owner, parent
cgroups.close()
print("ok")
"""


def test_the_parent_of_the_graders_own_cgroup_is_handed_over_and_used() -> None:
    if os.geteuid() != 0:
        pytest.skip("making a cgroup for someone else needs root")
    name = f"tensorcamp-test-{uuid.uuid4().hex[:8]}.slice"
    probe = subprocess.run(
        [sys.executable, "-c", _OWN_PARENT_PROBE, name, str(NOBODY)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    top = Path("/sys/fs/cgroup")
    for directory in [*top.glob(name), *top.glob(f"*/{name}")]:
        (directory / "child").rmdir()  # empty: the probe has exited
        directory.rmdir()
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.endswith("ok\n"), probe.stdout
