"""The rush: a class of simulated students through the distributed stack, as production
runs it on one machine, ramped step by step until the first target breaks.

    .venv/bin/python bench/rush.py                        # the full ramp (minutes)
    .venv/bin/python bench/rush.py --steps 10,25 --step-s 20   # a smoke run

It starts everything itself on this machine's loopback: a PostgreSQL database of its own on
the local server (127.0.0.1:5432, user postgres, dropped at the end), a private Redis, the
database migrated (`python -m app migrate`), two web processes behind one port (`uvicorn
app.main:create_app --factory --workers 2`) and two grader workers (`python -m
grader.worker`, GRADER_WORKERS threads each). The limits are production's defaults, but for
sign-ups from one address (the class signs up from this machine before anything is timed).

Each simulated student (a locust FastHttpUser, bearer token) visits lessons: opens the
lesson's page, answers its multiple-choice questions (a third wrong), submits code for its
exercise (a third wrong: most print a wrong answer, a few loop for ever or crash) and polls
for the verdict as the page does (`GET /api/submissions/{id}?wait=2` until finished). A 429
is obeyed as the page obeys it: wait Retry-After, send again; it is counted, not failed.

Per step: users, requests/s, p50/p95/p99 per route, submit-to-verdict time (loops that
never end are timed apart: they take the exercise's wall-time limit by design), the most
jobs waiting in the Redis queue, 429s and failures. After the ramp every submission id a
student was given must reach done or error within --drain-s: any other is lost.

Targets (2 cores): 0 failed requests and 0 lost submissions at the largest step; p95
submit-to-verdict under 5 s at 200 students; p95 page latency under 300 ms.
"""

# ruff: noqa: I001  (locust patches the standard library for gevent on import: it comes first)
from __future__ import annotations

from locust import FastHttpUser, between, task
from locust.env import Environment
import gevent
import gevent.pool

import argparse
import random
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.stack import Stack  # noqa: E402

LESSONS = ROOT / "exercises" / "lessons"
PAGE = "/lessons/[slug]"
VERDICT = "submit→verdict"
ENDLESS_VERDICT = "submit→verdict (endless loop)"
POLL_WAIT_S = 2  # as frontend/workbench.js
TARGETS = {"page_p95_ms": 300, "verdict_p95_s": 5.0, "verdict_at_users": 200}
DEFAULT_STEPS = "25,50,100,150,200,250,300,400"

ENDLESS = "while True:\n    pass\n"
CRASH = "raise RuntimeError('the rush: a program that crashes')\n"
WRONG_TAIL = "\nprint('an extra line that makes the output wrong')\n"

# --- the course, read from the content files ---------------------------------------------


@dataclass
class Lesson:
    slug: str
    questions: list[tuple[str, Any, Any]] = field(default_factory=list)  # id, right, wrong
    exercises: list[tuple[str, str]] = field(default_factory=list)  # id, solution


def course() -> list[Lesson]:
    lessons = []
    for folder in sorted(LESSONS.iterdir()):
        if not (folder / "lesson.yaml").is_file():
            continue
        lesson = Lesson(yaml.safe_load((folder / "lesson.yaml").read_text())["slug"])
        questions = folder / "questions.yaml"
        for q in yaml.safe_load(questions.read_text())["questions"] if questions.exists() else []:
            if q.get("kind") != "multiple_choice":
                continue
            right = sorted(q["correct"])
            wrong_index = next(i for i in range(len(q["options"])) if i not in right)
            if q.get("multiple"):
                lesson.questions.append((q["id"], right, [wrong_index]))
            else:
                lesson.questions.append((q["id"], right[0], wrong_index))
        for exercise in sorted((folder / "exercises").glob("*/solution.py")):
            lesson.exercises.append((exercise.parent.name, exercise.read_text()))
        if lesson.exercises:
            lessons.append(lesson)
    return lessons


# --- the students -------------------------------------------------------------------------


class Shared:
    """What the students share with the script: their tokens, the ids they were given."""

    tokens: ClassVar[list[str]] = []
    given: ClassVar[set[int]] = set()
    lessons: ClassVar[list[Lesson]] = []
    too_many = 0


def program(solution: str) -> tuple[str, str]:
    """(code, kind): two thirds right, the rest mostly wrong output, a few crash or loop."""
    roll = random.random()
    if roll < 2 / 3:
        return solution, "right"
    if roll < 0.94:
        return solution + WRONG_TAIL, "wrong"
    if roll < 0.97:
        return CRASH, "crash"
    return ENDLESS, "endless"


class Student(FastHttpUser):
    wait_time = between(2, 5)  # reading, thinking, typing
    network_timeout = 60.0
    connection_timeout = 60.0

    def on_start(self) -> None:
        token = Shared.tokens.pop() if Shared.tokens else ""
        self.auth = {"Authorization": f"Bearer {token}"}

    def call(self, method: str, path: str, name: str, body: Any = None) -> dict[str, Any] | None:
        """One request as the page sends it: a 429 waits Retry-After and sends again."""
        while True:
            with self.client.request(
                method, path, name=name, json=body, headers=self.auth, catch_response=True
            ) as response:
                if response.status_code == 429:
                    response.success()  # backpressure, obeyed: not a failure
                    Shared.too_many += 1
                    retry_after = float(response.headers.get("Retry-After") or 5)
                elif response.status_code >= 400 or response.status_code == 0:
                    response.failure(f"{response.status_code}: {(response.text or '')[:200]}")
                    return None
                else:
                    return response.json() if name != PAGE else {}
            gevent.sleep(retry_after)

    @task
    def visit_a_lesson(self) -> None:
        lesson = random.choice(Shared.lessons)
        self.call("GET", f"/lessons/{lesson.slug}", PAGE)
        for question_id, right, wrong in lesson.questions[:2]:
            self.wait()
            answer = wrong if random.random() < 1 / 3 else right
            self.call(
                "POST",
                f"/api/questions/{question_id}/answers",
                "/api/questions/[id]/answers",
                {"answer": answer},
            )
        self.wait()
        exercise_id, solution = random.choice(lesson.exercises)
        code, kind = program(solution)
        started = time.perf_counter()
        submission = self.call(
            "POST",
            f"/api/exercises/{exercise_id}/submissions",
            "/api/exercises/[id]/submissions",
            {"code": code},
        )
        if submission is None:
            return
        Shared.given.add(submission["id"])
        while submission is not None and submission["status"] in ("queued", "running"):
            submission = self.call(
                "GET",
                f"/api/submissions/{submission['id']}?wait={POLL_WAIT_S}",
                f"/api/submissions/[id]?wait={POLL_WAIT_S}",
            )
        if submission is not None:
            self.environment.events.request.fire(
                request_type="TIME",
                name=ENDLESS_VERDICT if kind == "endless" else VERDICT,
                response_time=(time.perf_counter() - started) * 1000,
                response_length=0,
                exception=None,
                context={},
            )


# --- signing the class up ----------------------------------------------------------------


def sign_up(url: str, count: int) -> list[str]:
    """Bearer tokens of `count` new students, a few at a time (each is an Argon2 hash)."""
    import json
    import urllib.request

    tokens: list[str] = []

    def one() -> None:
        body = {"username": f"rush{uuid.uuid4().hex[:12]}", "password": "rush-pass-4242"}
        request = urllib.request.Request(
            f"{url}/api/auth/register",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=60) as answer:
            tokens.append(json.load(answer)["token"])

    pool = gevent.pool.Pool(4)
    for _ in range(count):
        pool.spawn(one)
    pool.join(raise_error=True)
    return tokens


# --- the ramp -----------------------------------------------------------------------------


@dataclass
class Step:
    users: int
    rps: float
    routes: dict[str, tuple[int, float, float, float]]  # name: count, p50, p95, p99 (ms)
    queue_max: int
    too_many: int
    failures: int

    def p95(self, name: str) -> float | None:
        return self.routes[name][2] if name in self.routes else None

    def broken(self) -> list[str]:
        broken = []
        if self.failures:
            broken.append(f"{self.failures} failed requests")
        page = self.p95(PAGE)
        if page is not None and page >= TARGETS["page_p95_ms"]:
            broken.append(f"page p95 {page:.0f} ms >= {TARGETS['page_p95_ms']} ms")
        verdict = self.p95(VERDICT)
        at = TARGETS["verdict_at_users"]
        if verdict is not None and self.users <= at and verdict >= TARGETS["verdict_p95_s"] * 1000:
            broken.append(f"verdict p95 {verdict / 1000:.1f} s >= {TARGETS['verdict_p95_s']} s")
        return broken


def run_step(environment: Environment, stack: Stack, users: int, step_s: float) -> Step:
    runner = environment.runner
    assert runner is not None
    runner.start(users, spawn_rate=max(5, users / 5))
    while runner.user_count < users:
        gevent.sleep(0.2)
    environment.stats.reset_all()
    Shared.too_many = 0
    started = time.monotonic()
    queue_max = 0
    while time.monotonic() - started < step_s:
        queue_max = max(queue_max, stack.queue_depth())
        gevent.sleep(1)
    elapsed = time.monotonic() - started
    stats = environment.stats
    routes = {}
    for (name, _method), entry in sorted(stats.entries.items()):
        if entry.num_requests:
            routes[name] = (
                entry.num_requests,
                entry.get_response_time_percentile(0.5),
                entry.get_response_time_percentile(0.95),
                entry.get_response_time_percentile(0.99),
            )
    http = sum(e.num_requests for (n, _m), e in stats.entries.items() if not n.startswith("submit"))
    return Step(
        users=users,
        rps=http / elapsed,
        routes=routes,
        queue_max=queue_max,
        too_many=Shared.too_many,
        failures=stats.total.num_failures,
    )


def table(steps: list[Step]) -> str:
    lines = [
        "| users | req/s | route | n | p50 ms | p95 ms | p99 ms | queue max | 429s | failed |",
        "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for step in steps:
        first = True
        for name, (count, p50, p95, p99) in step.routes.items():
            head = f"| {step.users} | {step.rps:.1f} |" if first else "| | |"
            tail = f" {step.queue_max} | {step.too_many} | {step.failures} |" if first else " | | |"
            lines.append(f"{head} {name} | {count} | {p50:.0f} | {p95:.0f} | {p99:.0f} |{tail}")
            first = False
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", default=DEFAULT_STEPS, help="students per step, rising")
    parser.add_argument("--step-s", type=float, default=30, help="seconds measured per step")
    parser.add_argument("--drain-s", type=float, default=90, help="wait for the last verdicts")
    parser.add_argument("--worker-threads", type=int, default=2, help="GRADER_WORKERS each")
    parser.add_argument("--keep-going", action="store_true", help="past the first broken target")
    args = parser.parse_args()
    steps = [int(n) for n in args.steps.split(",")]

    Shared.lessons = course()
    # The whole class signs up from this machine.
    stack = Stack(web_processes=2, workers=2, sandboxes=args.worker_threads,
                  env={"SIGNUPS_PER_ADDRESS": "100000"})  # fmt: skip
    results: list[Step] = []
    lost = None
    try:
        stack.start()
        print(f"stack up at {stack.url}; signing up {max(steps)} students", flush=True)
        Shared.tokens = sign_up(stack.url, max(steps))
        environment = Environment(user_classes=[Student], host=stack.url)
        environment.create_local_runner()
        for users in steps:
            step = run_step(environment, stack, users, args.step_s)
            results.append(step)
            broken = step.broken()
            print(f"step {users}: {step.rps:.1f} req/s; {'; '.join(broken) or 'targets met'}")
            if broken and not args.keep_going:
                break
        assert environment.runner is not None
        environment.runner.quit()
        deadline = time.monotonic() + args.drain_s
        while (lost := stack.unfinished(Shared.given)) and time.monotonic() < deadline:
            time.sleep(1)
    finally:
        stack.stop()
    print()
    print(table(results))
    print()
    print(f"submissions given to students: {len(Shared.given)}; lost: {lost}")
    broken = next(
        (f"{step.users} students: {'; '.join(step.broken())}" for step in results if step.broken()),
        None,
    )
    print(f"first target broken at {broken}" if broken else "every target met at every step")
    return 1 if lost or (results and results[-1].failures) else 0


if __name__ == "__main__":
    sys.exit(main())
