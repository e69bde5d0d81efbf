"""Helpers shared by the grader tests."""

from __future__ import annotations

import os

from grader import Grader, Job, Limits, Result, Run

SEED_CODE = """import torch
cihaz = "cuda" if torch.cuda.is_available() else "cpu"
x = torch.ones(2, 3).to(cihaz)
sonuc = (x * 3).cpu()
print(sonuc.tolist())
print(sonuc.device.type == "cpu")
"""
SEED_EXPECTED = "[[3.0, 3.0, 3.0], [3.0, 3.0, 3.0]]\nTrue"
HARD_CODED_CUDA = SEED_CODE.replace('"cuda" if torch.cuda.is_available() else "cpu"', '"cuda"')

# Hostile code renames itself so a leftover process is easy to spot on the host. The name is
# this test process's own (at most 15 characters, what the kernel keeps): the hostile runs of
# another pytest-xdist worker, or of another test run on this host, are not ours to count.
MARKER = f"tchostile{os.getpid() % 1_000_000}"
MARK_PROCESS = f'import ctypes\nctypes.CDLL(None).prctl(15, b"{MARKER}", 0, 0, 0)\n'

QUICK = Limits(wall_time_s=2, cpu_time_s=2)


def grade(grader: Grader, code: str, expected: str = "", **job: object) -> Result:
    return grader.grade(Job(id="test", code=code, expected_output=expected, **job))


def marked_processes() -> list[int]:
    """Host processes carrying the hostile marker (there must be none after a run)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/comm") as comm:
                if comm.read().strip() == MARKER:
                    found.append(int(entry))
        except OSError:
            continue
    return found


def assert_host_unharmed(grader: Grader) -> None:
    assert marked_processes() == [], "a sandboxed process outlived its run"
    result = grade(grader, SEED_CODE, SEED_EXPECTED)
    assert result.verdict == "passed", result


def only_run(result: Result) -> Run:
    assert len(result.runs) == 1
    return result.runs[0]


def zygote_pids(grader: Grader) -> list[int]:
    return sorted(
        pool._zygote.process.pid
        for pools in grader._groups.values()
        for pool in pools
        if pool._zygote is not None
    )


def run_hostile(
    grader: Grader,
    code: str,
    expected: str = "",
    limits: Limits = QUICK,
    *,
    zygotes_survive: bool = False,
) -> Result:
    """Grade marked hostile code, then check the host is unharmed. With `zygotes_survive`, the
    same zygotes must also grade five normal jobs in a row (none died and was restarted)."""
    before = zygote_pids(grader)
    result = grade(grader, MARK_PROCESS + code, expected, limits=limits)
    if zygotes_survive:
        for _ in range(5):
            normal = grade(grader, SEED_CODE, SEED_EXPECTED)
            assert normal.verdict == "passed", normal
        assert zygote_pids(grader) == before, "a zygote died and was restarted"
    assert_host_unharmed(grader)
    return result


def hostile_verdict(
    grader: Grader,
    code: str,
    expected: str = "",
    limits: Limits = QUICK,
    *,
    zygotes_survive: bool = False,
) -> str:
    """The verdict of the one run of marked hostile code, after `run_hostile`'s checks."""
    result = run_hostile(grader, code, expected, limits, zygotes_survive=zygotes_survive)
    assert result.status == "done", result
    return only_run(result).verdict
