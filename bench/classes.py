"""Benchmark: the progress grid, its CSV and the insight page for a big class.

Builds, in a throw-away database, a class of 500 students and 15 lessons (the built-in
lessons plus synthesized ones, each with questions and exercises) with a realistic history
of answers and graded submissions, then times the pages and API calls over several runs and
prints the median time and the number of SQL statements of each. For comparison, in the
same run: the same grid for a class of 50 of those students, and the naive way (the
per-student progress query of the lesson pages, once for every student).

    .venv/bin/python bench/classes.py                      # SQLite in a temporary folder
    .venv/bin/python bench/classes.py --postgres           # also PostgreSQL (127.0.0.1:5432)
    .venv/bin/python bench/classes.py --postgres postgresql://user@host:5432
    DATABASE_URL=postgresql://... .venv/bin/python bench/classes.py   # same as --postgres URL

PostgreSQL runs use a fresh database named tc_bench_<pid>, dropped at the end.
Not a test: nothing is asserted; the figures are for reading.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx
from sqlalchemy import event, insert, select, text

from app import item_progress, migrations
from app.auth.security import hash_password
from app.auth.service import issue_token
from app.classes import service
from app.config import REPO_ROOT, Settings
from app.content import load_catalog, sync_catalog
from app.db import Database
from app.lessons.progress import lesson_progress
from app.main import create_app
from app.models import (
    ClassAssignment,
    ClassMember,
    Exercise,
    Lesson,
    Question,
    QuestionAttempt,
    Submission,
    Track,
    User,
    utcnow,
)

QUESTIONS_PER_LESSON = 5
EXERCISES_PER_LESSON = 2
ERRORS = [
    "RuntimeError: Expected all tensors to be on the same device, but found at least two "
    "devices, cuda:0 and cpu!",
    "RuntimeError: mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)",
    "TypeError: can't convert cuda:0 device type tensor to numpy.",
    "IndexError: index 3 is out of bounds for dimension 0 with size 3",
    "NameError: name 'torch' is not defined",
]


class Counter:
    """SQL statements sent while it is active."""

    def __init__(self, database: Database) -> None:
        self.engine = database.engine.sync_engine
        self.count = 0

    def _on(self, *args: Any) -> None:
        self.count += 1

    def __enter__(self) -> Counter:
        self.count = 0
        event.listen(self.engine, "before_cursor_execute", self._on)
        return self

    def __exit__(self, *exc: object) -> None:
        event.remove(self.engine, "before_cursor_execute", self._on)


def synthetic_question(lesson: str, n: int) -> dict[str, Any]:
    qid = f"{lesson}-q{n}"
    kind = ("multiple_choice", "fill_in", "matching")[n % 3]
    if kind == "multiple_choice":
        public: dict[str, Any] = {
            "options": ["int64", "float32", "int32", "bool"],
            "multiple": False,
        }
        key: dict[str, Any] = {"correct": [1]}
    elif kind == "fill_in":
        public = {"template": "t = torch.____(6).reshape(2, ____)", "blanks": 2}
        key = {
            "blanks": [
                {"accepted": ["arange"], "answer": None, "case_sensitive": True, "regex": False},
                {"accepted": ["3"], "answer": None, "case_sensitive": True, "regex": False},
            ]
        }
    else:
        left = [{"id": f"l{i}", "text": t} for i, t in enumerate(["shape", "ndim", "numel()"])]
        right = [{"id": f"r{i}", "text": t} for i, t in enumerate(["(2, 5)", "2", "10"])]
        public = {"left": left, "right": right}
        key = {"pairs": {"l0": "r0", "l1": "r1", "l2": "r2"}}
    return {
        "id": qid,
        "lesson_slug": lesson,
        "position": n,
        "kind": kind,
        "prompt_html": f"<p>Question {n} of {lesson}</p>",
        "public": public,
        "key": key,
        "explanation_html": "<p>Because.</p>",
        "retired": False,
    }


def answers_for(question: dict[str, Any], right: bool, rng: random.Random) -> Any:
    """A right answer, or one of a few typical wrong ones, in the API's shape."""
    public, key = question["public"], question["key"]
    if question["kind"] == "multiple_choice":
        correct = sorted(key["correct"])
        if public["multiple"]:
            return (
                correct if right else sorted(set(correct) ^ {rng.randrange(len(public["options"]))})
            )
        wrong = [i for i in range(len(public["options"])) if i not in correct]
        return correct[0] if right else rng.choice(wrong[:1] * 3 + wrong)
    if question["kind"] == "fill_in":
        answers = [b.get("answer") or b["accepted"][0] for b in key["blanks"]]
        if right:
            return answers
        slip = rng.randrange(len(answers))
        return [
            rng.choice(["range", "2", "zeros"]) if i == slip else a for i, a in enumerate(answers)
        ]
    if question["kind"] == "predict_output":
        return key["answer"] if right else rng.choice(["tensor([1, 2])", "2", "None"])
    if question["kind"] == "ordering":
        lines = [{"id": i, "indent": key["indents"].get(i, 0)} for i in key["order"]]
        return lines if right else lines[::-1]
    pairs = dict(key["pairs"])
    if right:
        return pairs
    lefts = list(pairs)
    i, j = rng.sample(range(len(lefts)), 2) if len(lefts) > 1 else (0, 0)
    swapped = dict(pairs)
    swapped[lefts[i]], swapped[lefts[j]] = pairs[lefts[j]], pairs[lefts[i]]
    return swapped


async def build(database: Database, *, students: int, lessons: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    catalog = load_catalog(REPO_ROOT / "exercises")
    started = time.perf_counter()
    writer = getattr(database, "writer", database.sessionmaker)  # BEGIN IMMEDIATE on SQLite
    async with writer() as session, session.begin():
        await sync_catalog(session=session, catalog=catalog)
        existing = list(
            (await session.scalars(select(Lesson.slug).order_by(Lesson.position))).all()
        )
        extra = max(0, lessons - len(existing))
        session.add(
            Track(slug="bench", title="Bench", level="advanced", position=99, retired=False)
        )
        await session.flush()
        new_lessons = [f"bench-lesson-{i:02d}" for i in range(extra)]
        await session.execute(
            insert(Lesson),
            [
                {
                    "slug": slug,
                    "track_slug": "bench",
                    "position": 100 + i,
                    "title": f"Bench lesson {i + 1}",
                    "level": "advanced",
                    "summary": "Synthesized for the benchmark.",
                    "prerequisites": [],
                    "body_html": "<p>Bench.</p>",
                    "translations": {},
                    "retired": False,
                }
                for i, slug in enumerate(new_lessons)
            ],
        )
        await session.execute(
            insert(Question),
            [
                synthetic_question(slug, n)
                for slug in new_lessons
                for n in range(QUESTIONS_PER_LESSON)
            ],
        )
        await session.execute(
            insert(Exercise),
            [
                {
                    "id": f"{slug}-e{n}",
                    "lesson_slug": slug,
                    "position": n,
                    "title": f"Exercise {n + 1}",
                    "prompt_html": "<p>Print it.</p>",
                    "starter_code": "import torch\n",
                    "solution_code": "print(1)\n",
                    "expected_output": "1\n",
                    "devices": ["cpu", "cuda"],
                    "comparison": {},
                    "limits": {},
                    "retired": False,
                }
                for slug in new_lessons
                for n in range(EXERCISES_PER_LESSON)
            ],
        )
        slugs = (existing + new_lessons)[:lessons]
        questions: list[dict[str, Any]] = [
            {"id": q.id, "kind": q.kind, "lesson": q.lesson_slug, "public": q.public, "key": q.key}
            for q in (
                await session.scalars(select(Question).where(Question.lesson_slug.in_(slugs)))
            )
        ]
        exercise_ids: dict[str, list[str]] = {slug: [] for slug in slugs}
        for exercise_id, slug in await session.execute(
            select(Exercise.id, Exercise.lesson_slug).where(Exercise.lesson_slug.in_(slugs))
        ):
            exercise_ids[slug].append(exercise_id)
        by_lesson: dict[str, list[dict[str, Any]]] = {slug: [] for slug in slugs}
        for q in questions:
            by_lesson[q["lesson"]].append(q)

        password_hash = hash_password("bench password")  # once, reused by every account
        teacher = User(username="bench-teacher", password_hash=password_hash, role="teacher")
        session.add(teacher)
        await session.flush()
        token = await issue_token(session=session, user=teacher)
        await session.execute(
            insert(User),
            [
                {
                    "username": f"student{i:04d}",
                    "password_hash": password_hash,
                    "role": "student",
                    "created_at": utcnow(),
                }
                for i in range(students)
            ],
        )
        student_ids = list(
            (
                await session.scalars(
                    select(User.id).where(User.role == "student").order_by(User.id)
                )
            ).all()
        )
        big = await service.create_class(session=session, teacher_id=teacher.id, name="Big class")
        small = await service.create_class(
            session=session, teacher_id=teacher.id, name="Small class"
        )
        await session.execute(
            insert(ClassMember),
            [{"class_id": big.id, "student_id": s, "joined_at": utcnow()} for s in student_ids]
            + [
                {"class_id": small.id, "student_id": s, "joined_at": utcnow()}
                for s in student_ids[:50]
            ],
        )
        now = utcnow()
        await session.execute(
            insert(ClassAssignment),
            [
                {
                    "class_id": class_id,
                    "lesson_slug": slug,
                    "due_at": now + timedelta(days=7 * (i - lessons // 3)),
                    "created_at": now,
                }
                for class_id in (big.id, small.id)
                for i, slug in enumerate(slugs)
            ],
        )

        # History: earlier lessons are further along; a student is strong or weak.
        attempts: list[dict[str, Any]] = []
        submissions: list[dict[str, Any]] = []
        start = now - timedelta(days=60)
        for s in student_ids:
            skill = rng.uniform(0.35, 0.95)
            reach = rng.uniform(0.2, 1.0) * lessons
            clock = start + timedelta(minutes=rng.randint(0, 600))
            for index, slug in enumerate(slugs):
                if index > reach:
                    break
                for q in by_lesson[slug]:
                    if rng.random() > 0.9:
                        continue
                    for _ in range(4):
                        right = rng.random() < skill
                        clock += timedelta(minutes=rng.randint(1, 30))
                        attempts.append(
                            {
                                "user_id": s,
                                "question_id": q["id"],
                                "answer": answers_for(q, right, rng),
                                "correct": right,
                                "created_at": clock,
                            }
                        )
                        if right:
                            break
                for e in exercise_ids[slug]:
                    if rng.random() > 0.85:
                        continue
                    for _ in range(5):
                        passed = rng.random() < skill * 0.8
                        verdict = (
                            "passed"
                            if passed
                            else rng.choice(
                                ["wrong_output", "runtime_error", "runtime_error", "timeout"]
                            )
                        )
                        error = rng.choice(ERRORS)
                        clock += timedelta(minutes=rng.randint(1, 30))
                        runs = [
                            {
                                "device": device,
                                "verdict": verdict,
                                "stdout": "1\n" if passed else f"{rng.randint(2, 4)}\n",
                                "stderr": "Traceback (most recent call last):\n"
                                f'  File "main.py", line 4, in <module>\n{error}\n'
                                if verdict == "runtime_error"
                                else "",
                                "exit_code": 1 if verdict == "runtime_error" else 0,
                                "duration_ms": rng.randint(40, 900),
                                "diff": "" if passed else "--- expected\n+++ actual\n-1\n+2\n",
                            }
                            for device in ("cpu", "cuda")
                        ]
                        submissions.append(
                            {
                                "user_id": s,
                                "exercise_id": e,
                                "code": "import torch\nx = torch.ones(3)\nprint(x.sum())\n",
                                "mode": "grade",
                                "status": "done",
                                "verdict": verdict,
                                "runs": runs,
                                "attempts": 1,
                                "created_at": clock,
                                "finished_at": clock + timedelta(seconds=2),
                            }
                        )
                        if passed:
                            break
        for chunk in range(0, len(attempts), 20_000):
            await session.execute(insert(QuestionAttempt), attempts[chunk : chunk + 20_000])
        for chunk in range(0, len(submissions), 5_000):
            await session.execute(insert(Submission), submissions[chunk : chunk + 5_000])
        # Loaded in bulk, not recorded one by one: the students' records (item_progress) are
        # made from them as migration 0021 fills them on an existing database.
        await item_progress.rebuild(session=session)
    # Planner statistics, as autovacuum (PostgreSQL) or `PRAGMA optimize` would gather them
    # on a live database; without them a freshly bulk-loaded table is planned blind.
    async with writer() as session, session.begin():
        await session.execute(text("ANALYZE"))
    return {
        "token": token,
        "big": big.id,
        "small": small.id,
        "student_ids": student_ids,
        "lessons": len(slugs),
        "attempts": len(attempts),
        "submissions": len(submissions),
        "build_s": time.perf_counter() - started,
    }


async def timed(
    database: Database, runs: int, call: Callable[[], Awaitable[int]]
) -> tuple[float, float, int, int]:
    """(median ms, median CPU ms of this process, statements per call, bytes) over `runs`
    calls after one warm-up. The CPU time is the app's (and SQLite's, which runs in this
    process; not PostgreSQL's): on a busy machine it is near what the wall-clock time would
    be on a quiet one, where the wall clock also counts the time waited for a core."""
    await call()
    times, cpu, counts, size = [], [], [], 0
    for _ in range(runs):
        with Counter(database) as counter:
            started, started_cpu = time.perf_counter(), time.process_time()
            size = await call()
            times.append((time.perf_counter() - started) * 1000)
            cpu.append((time.process_time() - started_cpu) * 1000)
        counts.append(counter.count)
    return statistics.median(times), statistics.median(cpu), max(counts), size


async def bench_backend(name: str, url: str, args: argparse.Namespace) -> None:
    print(f"\n== {name}: {args.students} students, {args.lessons} lessons ==", flush=True)
    await asyncio.to_thread(migrations.upgrade, url)
    database = Database.from_url(url)
    try:
        data = await build(database, students=args.students, lessons=args.lessons, seed=args.seed)
        print(
            f"built in {data['build_s']:.1f} s: {data['lessons']} lessons, "
            f"{data['attempts']} answers, {data['submissions']} graded submissions"
        )
        settings = Settings(
            environment="test",
            secret_key="bench-secret-key-long-enough-0123456789abcdef",
            data_dir=Path(tempfile.gettempdir()),
            database_url=url,
            grading_enabled=False,
        )
        app = create_app(settings, database=database)
        headers = {"Authorization": f"Bearer {data['token']}", "accept": "text/html"}
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:

            def get(path: str) -> Callable[[], Awaitable[int]]:
                async def call() -> int:
                    response = await client.get(path, headers=headers)
                    assert response.status_code == 200, (path, response.status_code)
                    return len(response.content)

                return call

            big, small = data["big"], data["small"]
            rows = [
                ("grid page (HTML, first 100 rows)", get(f"/classes/{big}/progress")),
                (
                    "grid page, compact (HTML, every row)",
                    get(f"/classes/{big}/progress?density=compact"),
                ),
                ("grid API (JSON, all cells)", get(f"/api/classes/{big}/progress")),
                ("grid CSV", get(f"/api/classes/{big}/progress.csv")),
                ("insight page (HTML)", get(f"/classes/{big}/insight")),
                ("insight API (JSON)", get(f"/api/classes/{big}/insight")),
                ("grid API, class of 50 (baseline)", get(f"/api/classes/{small}/progress")),
            ]
            results = {}
            print(f"{'request':44} {'median ms':>10} {'cpu ms':>8} {'queries':>8} {'bytes':>10}")
            for label, call in rows:
                ms, cpu_ms, queries, size = await timed(database, args.runs, call)
                results[label] = ms
                print(f"{label:44} {ms:10.1f} {cpu_ms:8.1f} {queries:8d} {size:10d}", flush=True)

            async def naive() -> int:
                async with database.sessionmaker() as session:
                    for student in data["student_ids"]:
                        await lesson_progress(session=session, user_id=student)
                return 0

            naive_ms, _, naive_queries, _ = await timed(database, max(1, args.runs // 3), naive)
            label = f"naive: lesson_progress per student ({len(data['student_ids'])}x)"
            print(f"{label:44} {naive_ms:10.1f} {naive_queries:8d}")
            grid_ms = results["grid API (JSON, all cells)"]
            print(
                f"ratio {len(data['student_ids'])} vs 50 students (grid API): "
                f"{grid_ms / results['grid API, class of 50 (baseline)']:.1f}x time, same queries; "
                f"naive per-student vs aggregated grid: {naive_ms / grid_ms:.1f}x slower"
            )
    finally:
        await database.dispose()


def server_of(url: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "", "", ""))


async def with_postgres(server: str, args: argparse.Namespace) -> None:
    import asyncpg

    name = f"tc_bench_{os.getpid()}"
    plain = server.replace("postgresql+asyncpg://", "postgresql://")
    connection = await asyncpg.connect(f"{plain}/postgres")
    await connection.execute(f'CREATE DATABASE "{name}"')
    await connection.close()
    try:
        from app.config import async_database_url

        await bench_backend("PostgreSQL", async_database_url(f"{plain}/{name}"), args)
    finally:
        connection = await asyncpg.connect(f"{plain}/postgres")
        await connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await connection.close()


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--students", type=int, default=500)
    parser.add_argument("--lessons", type=int, default=15)
    parser.add_argument("--runs", type=int, default=7, help="timed runs per request (median)")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument(
        "--postgres",
        nargs="?",
        const="postgresql://postgres@127.0.0.1:5432",
        default=os.environ.get("DATABASE_URL") or None,
        help="also run on PostgreSQL at this server URL (default 127.0.0.1:5432)",
    )
    parser.add_argument("--no-sqlite", action="store_true", help="PostgreSQL only")
    args = parser.parse_args()
    if not args.no_sqlite:
        with tempfile.TemporaryDirectory() as folder:
            from app.config import async_database_url

            await bench_backend("SQLite", async_database_url(f"sqlite:///{folder}/bench.db"), args)
    if args.postgres:
        await with_postgres(server_of(args.postgres), args)


if __name__ == "__main__":
    asyncio.run(main())
