"""Regrade speed on the embedded grader: N stored submissions graded again, then applied.

    .venv/bin/python bench/regrade.py                    # 10,000 submissions, SQLite
    .venv/bin/python bench/regrade.py -n 200             # a quick run
    .venv/bin/python bench/regrade.py --database-url postgresql://postgres@127.0.0.1:5432/x

It makes a database of its own (SQLite in a temporary folder unless --database-url names an
empty PostgreSQL database), migrates it, loads the course, and seeds N finished submissions of
the seed exercise straight into the table (`--students` accounts; two thirds the sample
solution, the rest a wrong answer). Then, timed: a regrade is requested (the exercise's
expected output changed) and graded on the embedded grader as the server runs it (the
background worker, `--workers` sandboxes, no live submissions to yield to), and applied. It
prints submissions/s for the grading and the seconds the apply took.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import func, insert, select, update  # noqa: E402

from app import migrations  # noqa: E402
from app.config import Settings  # noqa: E402
from app.db import Database  # noqa: E402
from app.grading.backend import start_grading  # noqa: E402
from app.grading.dispatch import EmbeddedGrading  # noqa: E402
from app.main import load_content  # noqa: E402
from app.models import (  # noqa: E402
    Exercise,
    Regrade,
    RegradeResult,
    RegradeStatus,
    Role,
    Submission,
    SubmissionMode,
    SubmissionStatus,
    User,
    Verdict,
    utcnow,
)
from app.submissions import regrade  # noqa: E402

EXERCISE = "gpu-support-device-independent"
SOLUTION = (ROOT / "exercises/lessons/gpu-support/exercises" / EXERCISE / "solution.py").read_text()
WRONG = 'print("[[3.0, 3.0, 3.0]]")\nprint("cpu")\n'


async def seed(db: Database, *, count: int, students: int) -> None:
    async with db.writer() as session, session.begin():
        users = (
            await session.scalars(
                insert(User)
                .values(
                    [
                        {"username": f"regrade-bench-{i}", "display_name": f"Student {i}",
                         "password_hash": "-", "role": Role.STUDENT, "created_at": utcnow()}
                        for i in range(students)
                    ]
                )
                .returning(User.id)
            )
        ).all()  # fmt: skip
    now = utcnow()
    for start in range(0, count, 1000):
        rows = [
            {"user_id": users[i % len(users)], "exercise_id": EXERCISE,
             "mode": SubmissionMode.GRADE, "code": WRONG if i % 3 == 2 else SOLUTION,
             "status": SubmissionStatus.DONE,
             "verdict": Verdict.WRONG_OUTPUT if i % 3 == 2 else Verdict.PASSED,
             "devices": ["cpu"], "runs": [], "created_at": now, "dispatched_at": now,
             "finished_at": now}
            for i in range(start, min(count, start + 1000))
        ]  # fmt: skip
        async with db.writer() as session, session.begin():
            await session.execute(insert(Submission), rows)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", "--submissions", type=int, default=10_000)
    parser.add_argument("--students", type=int, default=300)
    parser.add_argument("--workers", type=int, default=2, help="sandboxes (GRADER_WORKERS)")
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = args.database_url or f"sqlite:///{Path(tmp) / 'bench.db'}"
        settings = Settings(
            environment="test",
            secret_key="bench-secret-key-that-is-long-enough-0123456789",
            data_dir=Path(tmp),
            database_url=url,
            grader_workers=args.workers,
        )
        await asyncio.to_thread(migrations.upgrade, settings.effective_database_url)
        db = Database.from_url(settings.effective_database_url)
        await load_content(settings, db)
        started = time.perf_counter()
        await seed(db, count=args.submissions, students=args.students)
        print(f"seeded {args.submissions} submissions in {time.perf_counter() - started:.1f} s")
        grading = await start_grading(settings, db)
        assert isinstance(grading, EmbeddedGrading), "grading must be embedded (no REDIS_URL)"
        while not await grading.ready():  # noqa: ASYNC110 (a poll, as the health check)
            await asyncio.sleep(0.1)
        try:
            async with db.writer() as session, session.begin():
                await session.execute(
                    update(Exercise).where(Exercise.id == EXERCISE).values(expected_output="x")
                )
                exercise = await session.get_one(Exercise, EXERCISE)
                made = await regrade.request_regrade(
                    session=session, exercise=exercise, requested_by=None, reason="bench"
                )
                regrade_id = made.id
            started = time.perf_counter()
            grading.wake_background()
            while True:
                await asyncio.sleep(0.5)
                async with db.sessionmaker() as session:
                    state = await session.get_one(Regrade, regrade_id)
                    graded = await session.scalar(
                        select(func.count()).where(
                            RegradeResult.regrade_id == regrade_id,
                            RegradeResult.graded_at.is_not(None),
                        )
                    )
                if state.status == RegradeStatus.READY:
                    break
                print(f"\r{graded}/{args.submissions} graded", end="", flush=True)
            took = time.perf_counter() - started
            rate = args.submissions / took
            print(
                f"\rregraded {args.submissions} submissions in {took:.1f} s: "
                f"{rate:.1f} submissions/s ({args.workers} sandboxes)"
            )
            started = time.perf_counter()
            async with db.writer() as session, session.begin():
                state = await session.get_one(Regrade, regrade_id)
                changed = await regrade.apply(session=session, regrade=state, user_id=None)
            print(f"applied in {time.perf_counter() - started:.1f} s ({changed} verdicts changed)")
        finally:
            await grading.stop()
            await db.dispose()


if __name__ == "__main__":
    asyncio.run(main())
