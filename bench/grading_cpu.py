"""What one grading costs the web process: its CPU time and the sandbox's, per grading.

    .venv/bin/python bench/grading_cpu.py            # 200 gradings, one after another
    .venv/bin/python bench/grading_cpu.py -n 500

It starts an embedded server as bench/grading.py does, signs up a few students, grades the
seed exercise's sample solution `-n` times through the HTTP API (`POST ...?wait=30`, one at
a time) and prints the web process's CPU milliseconds per grading (user + system, from
/proc/PID/stat, its threads included) and its children's (the sandboxes, counted as they
are reaped), beside the p50 wall time. On a machine that other work shares, CPU time per
grading compares two versions where wall times do not: run both in the same hour.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
import grading  # bench/grading.py: the server, the class and one grading

TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> tuple[float, float]:
    """(the process's own CPU seconds, its reaped children's)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    own = int(fields[11]) + int(fields[12])
    children = int(fields[13]) + int(fields[14])
    return own / TICK, children / TICK


async def measure(url: str, pid: int, count: int) -> None:
    limits = httpx.Limits(keepalive_expiry=grading.KEEPALIVE_S)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:
        students = await grading.Students.sign_up(client, 20)
        for _ in range(5):  # warm: connections, the zygote, statement caches
            await grading.grade_once(client, students)
        before = cpu_seconds(pid)
        times = [await grading.grade_once(client, students) for _ in range(count)]
        after = cpu_seconds(pid)
    own = (after[0] - before[0]) / count * 1000
    children = (after[1] - before[1]) / count * 1000
    print(
        f"{count} gradings: web process {own:.1f} ms CPU per grading, "
        f"reaped children {children:.1f} ms; p50 submit to verdict "
        f"{statistics.median(times) * 1000:.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--gradings", type=int, default=200)
    parser.add_argument("--port", type=int, default=8799)
    args = parser.parse_args()
    server, url = grading.start_server(args.port)
    try:
        asyncio.run(measure(url, server.pid, args.gradings))
    finally:
        server.terminate()
        server.wait(30)


if __name__ == "__main__":
    main()
