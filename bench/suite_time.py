"""Where `make pytest`'s time goes: the suite (or the pytest arguments given) run as `make
pytest` runs it, each test's start and end recorded on its worker, then a summary.

    .venv/bin/python bench/suite_time.py                    # the whole suite, -n auto
    .venv/bin/python bench/suite_time.py -- tests/browser   # pytest arguments after --

It prints the wall time; the CPU time of everything the run started (counted by a cpuacct
cgroup of its own where cgroup v1 lets root make one, else only pytest and the processes it
waited for, which leaves Chromium out); how busy the machine's cores were (/proc/stat: near
100% means the run is bound by CPU); and each worker's busy time beside the wall time (the
baseline: a worker busy for the whole run means the schedule wastes nothing, and only less
work would be faster). Then the tests' time by kind (browser, run once per database
backend, the other tests of tests/app, the grader's) and the modules that take longest. A
test's time is its setup, call and teardown. Compare two versions in the same hour: this
machine's speed varies.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PLUGIN = "suite_time_plugin"  # bench/suite_time_plugin.py
CPUACCT = Path("/sys/fs/cgroup/cpuacct")


class CpuCount:
    """The CPU time of a process tree: a cpuacct cgroup that the run starts in (its
    children stay there), or, where none can be made, the children that were waited for."""

    def __init__(self) -> None:
        self.group: Path | None = CPUACCT / f"tensorcamp-suite-time-{os.getpid()}"
        try:
            self.group.mkdir()
        except OSError:
            self.group = None

    @property
    def what(self) -> str:
        return "everything the run started" if self.group else "pytest and what it waited for"

    def enter(self) -> None:
        """In the child, before it runs pytest."""
        if self.group:
            (self.group / "cgroup.procs").write_text(str(os.getpid()))

    def seconds(self) -> float:
        if self.group:
            return int((self.group / "cpuacct.usage").read_text()) / 1e9
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        return used.ru_utime + used.ru_stime

    def close(self) -> None:
        if not self.group:
            return
        for _ in range(50):  # processes that outlived pytest by a moment (Chromium's)
            try:
                self.group.rmdir()
                return
            except OSError:
                time.sleep(0.1)
        print(f"left {self.group}: processes still in it", file=sys.stderr)


def busy_ticks() -> tuple[int, int]:
    """(busy, all) clock ticks of every core since boot: /proc/stat's first line."""
    ticks = [int(field) for field in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    idle = ticks[3] + ticks[4]  # idle, iowait
    return sum(ticks) - idle, sum(ticks)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", default=os.environ.get("PYTEST_WORKERS", "auto"))
    parser.add_argument("--top", type=int, default=15, help="modules listed (default 15)")
    parser.add_argument("pytest_args", nargs="*", help="after --: what pytest runs")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        here = str(Path(__file__).resolve().parent)
        env = dict(os.environ) | {
            "PYTHONPATH": os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")])),
            "SUITE_TIME_DIR": folder,
        }
        command = [sys.executable, "-m", "pytest", "-q", "-p", PLUGIN, "-n", str(args.n)]
        command += ["--dist", "loadgroup", *args.pytest_args]
        count = CpuCount()
        busy_before, all_before = busy_ticks()
        began = time.time()
        try:
            status = subprocess.run(command, cwd=ROOT, env=env, preexec_fn=count.enter).returncode
            wall = time.time() - began
            busy_after, all_after = busy_ticks()
            cpu = count.seconds()
        finally:
            count.close()
        rows = [
            json.loads(line)
            for path in Path(folder).glob("timeline-*.jsonl")
            for line in path.read_text().splitlines()
        ]
    print(f"\nwall {wall:.0f} s; CPU of {count.what} {cpu:.0f} s")
    share = (busy_after - busy_before) / max(1, all_after - all_before)
    print(f"the machine's {os.cpu_count()} cores were {share:.0%} busy (anything running)")
    report(rows, began, wall, args.top)
    return status


def report(rows: list[list[Any]], began: float, wall: float, top: int) -> None:
    if not rows:
        return
    first = min(float(row[3]) for row in rows) - began
    print(f"start-up and collection: {first:.0f} s before the first test")
    busy: dict[str, float] = collections.defaultdict(float)
    done: dict[str, float] = collections.defaultdict(float)
    kinds: dict[str, float] = collections.defaultdict(float)
    counts: collections.Counter[str] = collections.Counter()
    modules: dict[str, float] = collections.defaultdict(float)
    for worker, nodeid, what, start, end in rows:
        seconds = float(end) - float(start)
        busy[worker] += seconds
        done[worker] = max(done[worker], float(end) - began)
        kinds[what] += seconds
        counts[what] += 1
        modules[nodeid.split("::")[0]] += seconds
    for worker in sorted(busy):
        print(f"{worker}: busy {busy[worker]:.0f} s, done {done[worker]:.0f} s after the start")
    print(f"\ntests' time, {sum(kinds.values()):.0f} s in all:")
    for name, seconds in sorted(kinds.items(), key=lambda item: -item[1]):
        print(f"  {seconds:7.0f} s  {counts[name]:5d} tests  {name}")
    print(f"\nthe {top} longest modules:")
    for module, seconds in sorted(modules.items(), key=lambda item: -item[1])[:top]:
        print(f"  {seconds:7.0f} s  {module}")


if __name__ == "__main__":
    sys.exit(main())
