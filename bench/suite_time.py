"""Where `make pytest`'s time goes: the suite (or the pytest arguments given) run as `make
pytest` runs it, each test's start and end recorded on its worker, then a summary.

    .venv/bin/python bench/suite_time.py                    # the whole suite, -n auto
    .venv/bin/python bench/suite_time.py -- tests/browser   # pytest arguments after --

It prints the wall time, the CPU time of pytest and the processes it waited for, and each
worker's busy time beside the wall time (the baseline: a worker busy for the whole run
means the schedule wastes nothing, and only less work would be faster). Then the tests'
time by kind (browser, run once per database backend, the other tests of
tests/app, the grader's) and the modules that take longest. A test's time is its setup,
call and teardown. Compare two versions in the same hour: this machine's speed varies.
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
        began = time.time()
        status = subprocess.run(command, cwd=ROOT, env=env).returncode
        wall = time.time() - began
        rows = [
            json.loads(line)
            for path in Path(folder).glob("timeline-*.jsonl")
            for line in path.read_text().splitlines()
        ]
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    report(rows, began, wall, used.ru_utime + used.ru_stime, args.top)
    return status


def report(rows: list[list[Any]], began: float, wall: float, cpu: float, top: int) -> None:
    print(f"\nwall {wall:.0f} s; CPU of pytest and the processes it waited for {cpu:.0f} s")
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
