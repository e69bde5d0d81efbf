"""Grading speed through the HTTP API, beside a cold `python main.py` baseline.

    .venv/bin/python bench/grading.py                 # starts its own embedded server
    .venv/bin/python bench/grading.py --url http://127.0.0.1:8000   # a running server
    .venv/bin/python bench/grading.py --stack         # starts a distributed deployment

It measures, for the seed exercise's sample solution: one submission at a time, HTTP submit
to verdict (p50, p99); a burst of 200 (time to the last verdict); sustained gradings per
second; and a cold `python main.py` of the same code. Targets on 2 cores: embedded p50 <= 15 ms,
the burst within 3 s, >= 80 gradings/s; distributed (`--url ... --distributed`) p50 <= 30 ms,
>= 45 gradings/s. A class of `--students` accounts is signed up before anything is timed.

`--stack` starts the distributed deployment on this machine and measures it against the
distributed targets: a database of its own on the PostgreSQL server at 127.0.0.1:5432
(user postgres, as the tests; dropped at the end), a private redis-server, one web process
(`python -m app serve` with REDIS_URL) and one grader worker (`python -m grader.worker`,
`--worker-sandboxes` sandboxes).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
TARGETS = {
    "embedded": {"p50_ms": 15, "burst_s": 3, "rate": 80},
    "distributed": {"p50_ms": 30, "burst_s": 3, "rate": 45},
}
sys.path.insert(0, str(ROOT))
from bench.stack import Stack  # noqa: E402

EXERCISE = "gpu-support-device-independent"
KEEPALIVE_S = 3.0  # under the server's keep-alive timeout (uvicorn: 5 s)
SOLUTION = (ROOT / "exercises/lessons/gpu-support/exercises" / EXERCISE / "solution.py").read_text()


class Students:
    """A class of students, signed up before anything is timed, taking turns to submit.

    Grading is fair per student (one submission of each in flight at a time), so a burst from
    one account would be graded one by one: like a real class, the load comes from many."""

    def __init__(self, headers: list[dict[str, str]]) -> None:
        self.headers = headers
        self.turn = 0

    @classmethod
    async def sign_up(cls, client: httpx.AsyncClient, count: int) -> Students:
        async def one() -> dict[str, str]:
            response = await client.post(
                "/api/auth/register",
                json={"username": f"bench{uuid.uuid4().hex[:12]}", "password": "bench-pass-42"},
            )
            response.raise_for_status()
            return {"Authorization": f"Bearer {response.json()['token']}"}

        headers = []
        for start in range(0, count, 10):  # a few at a time: each one is an argon2 hash
            headers += await asyncio.gather(*(one() for _ in range(min(10, count - start))))
        return cls(headers)

    async def next(self) -> dict[str, str]:
        self.turn += 1
        return self.headers[self.turn % len(self.headers)]


async def grade_once(client: httpx.AsyncClient, students: Students) -> float:
    """Submit to verdict: one round trip (POST ?wait), more only if the wait runs out."""
    headers = await students.next()
    started = time.perf_counter()
    response = await client.post(
        f"/api/exercises/{EXERCISE}/submissions?wait=30", json={"code": SOLUTION}, headers=headers
    )
    if response.status_code not in (200, 202):
        raise SystemExit(f"POST submission: {response.status_code} {response.text}")
    body = response.json()
    ident = body["id"]
    while body["status"] not in ("done", "error"):
        response = await client.get(f"/api/submissions/{ident}?wait=30", headers=headers)
        body = response.json()
        if response.status_code != 200:
            raise SystemExit(f"GET submission {ident}: {response.status_code} {body}")
    elapsed = time.perf_counter() - started
    if body["verdict"] != "passed":
        raise SystemExit(f"submission {ident} was not passed: {body}")
    return elapsed


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def cold_baseline(runs: int) -> list[float]:
    with tempfile.TemporaryDirectory() as folder:
        main = Path(folder) / "main.py"
        main.write_text(SOLUTION)
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            subprocess.run([sys.executable, str(main)], check=True, capture_output=True, cwd=folder)
            times.append(time.perf_counter() - started)
    return times


async def measure(
    url: str, singles: int, burst: int, sustain_s: float, workers: int, class_size: int
) -> dict:
    # Idle connections are dropped before the server's keep-alive (uvicorn: 5 s) would close
    # them: reusing one the server is closing at that moment fails the request (ReadError).
    limits = httpx.Limits(max_connections=burst + 10, keepalive_expiry=KEEPALIVE_S)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:
        students = await Students.sign_up(client, class_size)
        for _ in range(3):  # warm up connections and the grader
            await grade_once(client, students)
        single = [await grade_once(client, students) for _ in range(singles)]

        started = time.perf_counter()
        await asyncio.gather(*(grade_once(client, students) for _ in range(burst)))
        burst_s = time.perf_counter() - started

        done = 0
        deadline = time.perf_counter() + sustain_s

        async def loop() -> None:
            nonlocal done
            while time.perf_counter() < deadline:
                await grade_once(client, students)
                done += 1

        started = time.perf_counter()
        await asyncio.gather(*(loop() for _ in range(workers)))
        rate = done / (time.perf_counter() - started)
    return {"single": single, "burst_s": burst_s, "rate": rate}


# The class signs up from one address, and the burst queues many at once.
UNLIMITED = {
    "SUBMISSIONS_PER_MINUTE": "100000",
    "SIGNUPS_PER_ADDRESS": "100000",
    "MAX_QUEUED_PER_USER": "100000",
    "GRADER_QUEUE_LIMIT": "100000",
}


def start_server(port: int) -> tuple[subprocess.Popen[bytes], str]:
    data = tempfile.mkdtemp(prefix="bench-")
    env = dict(os.environ) | UNLIMITED | {"DATA_DIR": data}
    server = subprocess.Popen(
        [sys.executable, "-m", "app", "serve", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            if httpx.get(f"{url}/readyz", timeout=1).status_code == 200:
                return server, url
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    server.kill()
    raise SystemExit("the server did not become ready")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a running server (default: start an embedded one)")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--singles", type=int, default=100)
    parser.add_argument("--burst", type=int, default=200)
    parser.add_argument("--sustain", type=float, default=15.0, help="seconds")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--cold", type=int, default=5, help="cold runs for the baseline")
    parser.add_argument(
        "--students",
        type=int,
        default=100,
        help="class size (a server we did not start keeps its per-student rate limit: each "
        "student must stay under it over the whole run)",
    )
    parser.add_argument(
        "--distributed", action="store_true", help="--url is a distributed deployment"
    )
    parser.add_argument(
        "--stack", action="store_true", help="start a distributed deployment and measure it"
    )
    parser.add_argument("--worker-sandboxes", type=int, default=2)
    args = parser.parse_args()

    server = None
    stack = (
        Stack(web_processes=1, workers=1, sandboxes=args.worker_sandboxes, env=UNLIMITED)
        if args.stack
        else None
    )
    url = args.url
    if stack is not None:
        url = stack.start()
        args.distributed = True
    elif url is None:
        server, url = start_server(args.port)
    try:
        cold = cold_baseline(args.cold)
        figures = asyncio.run(
            measure(
                url,
                args.singles,
                args.burst,
                args.sustain,
                args.concurrency,
                args.students,
            )
        )
    finally:
        if stack is not None:
            stack.stop()
        if server:
            server.terminate()
            try:
                server.wait(30)
            except subprocess.TimeoutExpired:
                server.kill()

    target = TARGETS["distributed" if args.distributed else "embedded"]
    p50 = statistics.median(figures["single"]) * 1000
    p99 = percentile(figures["single"], 0.99) * 1000
    cold_p50 = statistics.median(cold) * 1000
    started = " (embedded, started by this script)" if server else ""
    started = (
        " (distributed: web, worker, PostgreSQL, Redis, started by this script)"
        if stack
        else started
    )
    print(f"server: {url}{started}")
    print(f"cold `python main.py` (baseline): p50 {cold_p50:.0f} ms over {len(cold)} runs")
    print(
        f"one at a time, submit to verdict: p50 {p50:.1f} ms, p99 {p99:.1f} ms "
        f"over {len(figures['single'])}  (target p50 <= {target['p50_ms']} ms; "
        f"{cold_p50 / p50:.0f}x faster "
        f"than cold)"
    )
    print(
        f"burst of {args.burst}: last verdict after {figures['burst_s']:.2f} s  "
        f"(target <= {target['burst_s']} s; cold one after another: "
        f"{args.burst * cold_p50 / 1000:.0f} s, "
        f"{args.burst * cold_p50 / 1000 / figures['burst_s']:.0f}x)"
    )
    print(
        f"sustained ({args.concurrency} clients, {args.sustain:.0f} s): "
        f"{figures['rate']:.1f} gradings/s  (target >= {target['rate']}; "
        f"cold: {1000 / cold_p50:.1f}/s, "
        f"{figures['rate'] * cold_p50 / 1000:.0f}x)"
    )


if __name__ == "__main__":
    main()
