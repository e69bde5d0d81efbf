"""Storage one account cannot blow up: only the latest and the best submission of a student
keep their output in full, a running count of each user's stored bytes (shown in /metrics),
and paged, small listings."""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from alembic import command
from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from app.auth.service import create_user, issue_token
from app.config import Settings
from app.db import Database, make_engine
from app.grading import recording
from app.lessons.catalog import live_exercise
from app.migrations import alembic_config
from app.models import Submission, SubmissionRun, User
from app.models.states import SubmissionMode
from app.submissions import service
from tests.app.classes.conftest import build_world
from tests.helpers import bearer, metric, register, unique_name

EXERCISE = "gpu-support-device-independent"  # graded on cpu and cuda
LESSON = "gpu-support"
BIG = 64 * 1024


def big_run(device: str, verdict: str, tag: str = "") -> dict[str, Any]:
    """A run that printed as much as the grader lets through, on every output."""
    return {
        "device": device,
        "verdict": verdict,
        "stdout": (f"out {tag}\n" + "o" * BIG)[:BIG],
        "stderr": ("e" * BIG)[: BIG - 40] + "\nValueError: the last line names the error\n",
        "exit_code": 0 if verdict != "runtime_error" else 1,
        "duration_ms": 7,
        "diff": "" if verdict == "passed" else "d" * BIG,
        "hint": None,
        "detail": None,
    }


async def submit(
    session: AsyncSession,
    user_id: int,
    verdict: str,
    *,
    mode: str = "grade",
    code: str = "print('hi')\n",
    finish: bool = True,
) -> int:
    """A submission graded with big outputs, recorded as the graders record it."""
    exercise = await live_exercise(session=session, exercise_id=EXERCISE)
    assert exercise is not None
    submission = await service.create_submission(
        session=session, user_id=user_id, exercise=exercise, code=code, mode=SubmissionMode(mode)
    )
    if finish:
        runs = [big_run(device, verdict, str(submission.id)) for device in submission.devices]
        assert (
            await recording.record_runs(session=session, submission_id=submission.id, runs=runs)
            == "recorded"
        )
    return submission.id


def output_size(run: dict[str, Any]) -> int:
    return sum(len(str(run.get(field) or "").encode()) for field in ("stdout", "stderr", "diff"))


async def real_stored_bytes(session: AsyncSession, user_id: int) -> int:
    """What the user's rows really hold: code, and the outputs of every stored run."""
    rows = (
        await session.execute(
            select(Submission.code, Submission.runs).where(Submission.user_id == user_id)
        )
    ).all()
    copies = await session.scalars(
        select(SubmissionRun.run)
        .join(Submission, Submission.id == SubmissionRun.submission_id)
        .where(Submission.user_id == user_id)
    )
    return sum(len(code.encode()) + sum(map(output_size, runs)) for code, runs in rows) + sum(
        map(output_size, copies)
    )


async def counter(session: AsyncSession, user_id: int) -> int:
    value = await session.scalar(select(User.stored_bytes).where(User.id == user_id))
    return int(value or 0)


async def runs_of(session: AsyncSession, submission_id: int) -> tuple[bool, list[dict[str, Any]]]:
    row = (
        await session.execute(
            select(Submission.output_compacted, Submission.runs).where(
                Submission.id == submission_id
            )
        )
    ).one()
    return bool(row[0]), list(row[1])


def is_full(runs: list[dict[str, Any]]) -> bool:
    return bool(runs) and all(len(run["stdout"]) == BIG for run in runs)


def is_cut(runs: list[dict[str, Any]]) -> bool:
    return bool(runs) and all(
        len(run["stdout"].encode()) < 2200
        and len(run["stderr"].encode()) < 2200
        and re.search(r"… truncated \(\d+ bytes\) …", run["stdout"])
        # The end of the error output stays: it names the error (the teachers' insight).
        and run["stderr"].rstrip().endswith("ValueError: the last line names the error")
        and run["truncated"] is True
        for run in runs
    )


async def test_only_the_latest_and_the_best_keep_their_output(db: Database) -> None:
    async with db.writer() as session:
        user = await create_user(session=session, username=unique_name(), password="x" * 10)
        passed = await submit(session, user.id, "passed")
        wrong = [await submit(session, user.id, "wrong_output") for _ in range(4)]
        tries = [await submit(session, user.id, "passed", mode="run") for _ in range(3)]
        # Latest graded (the last wrong one), best (the newest that passed) and the latest
        # try-out keep everything; the rest keep the head and tail of each output.
        for ident in (passed, wrong[-1], tries[-1]):
            truncated, runs = await runs_of(session, ident)
            assert not truncated and is_full(runs), ident
        for ident in (*wrong[:-1], *tries[:-1]):
            truncated, runs = await runs_of(session, ident)
            assert truncated and is_cut(runs), ident
        # Code is always kept.
        codes = await session.scalars(select(Submission.code).where(Submission.user_id == user.id))
        assert set(codes) == {"print('hi')\n"}
        # A newer pass is the best and the latest: the old best and the old latest are cut.
        newer = await submit(session, user.id, "passed")
        assert is_full((await runs_of(session, newer))[1])
        for ident in (passed, wrong[-1]):
            truncated, runs = await runs_of(session, ident)
            assert truncated and is_cut(runs), ident
        # An older attempt that printed little keeps all of it, and says nothing was cut.
        exercise = await live_exercise(session=session, exercise_id=EXERCISE)
        assert exercise is not None
        small = [{**big_run(d, "wrong_output"), "stdout": "1\n", "stderr": "", "diff": "-2\n+1"}
                 for d in ("cpu", "cuda")]  # fmt: skip
        quiet = await service.create_submission(
            session=session, user_id=user.id, exercise=exercise, code="print(1)"
        )
        await recording.record_runs(session=session, submission_id=quiet.id, runs=small)
        await submit(session, user.id, "wrong_output")
        assert await runs_of(session, quiet.id) == (True, small)
        # A finished submission's runs live in one place only.
        copies = await session.scalars(
            select(SubmissionRun.run)
            .join(Submission, Submission.id == SubmissionRun.submission_id)
            .where(Submission.user_id == user.id)
        )
        assert all(output_size(run) == 0 for run in copies)


async def test_the_counter_matches_what_is_stored(db: Database) -> None:
    async with db.writer() as session:
        user = await create_user(session=session, username=unique_name(), password="x" * 10)
        other = await create_user(session=session, username=unique_name(), password="x" * 10)
        assert await counter(session, user.id) == 0
        await submit(session, user.id, "passed", code="x = 'é'\n" * 100)
        assert await counter(session, user.id) == await real_stored_bytes(session, user.id)
        for verdict in ("wrong_output", "runtime_error", "passed", "wrong_output"):
            await submit(session, user.id, verdict)
            assert await counter(session, user.id) == await real_stored_bytes(session, user.id)
        await submit(session, user.id, "passed", mode="run")
        await submit(session, user.id, "passed", mode="run")
        # Unfinished: one device has reported, the other has not.
        pending = await submit(session, user.id, "passed", finish=False)
        await recording.record_runs(
            session=session, submission_id=pending, runs=[big_run("cpu", "passed")]
        )
        assert await counter(session, user.id) == await real_stored_bytes(session, user.id)
        # A duplicate delivery stores nothing and counts nothing.
        before = await counter(session, user.id)
        await recording.record_runs(
            session=session, submission_id=pending, runs=[big_run("cpu", "wrong_output")]
        )
        assert await counter(session, user.id) == before
        # Ended by the platform part-way: its stored run is cut once it is an older one.
        await recording.fail(session=session, submission_id=pending, detail="worker lost")
        await submit(session, user.id, "wrong_output")
        assert await counter(session, user.id) == await real_stored_bytes(session, user.id)
        left = await session.scalar(
            select(SubmissionRun.run).where(SubmissionRun.submission_id == pending)
        )
        assert left is not None and output_size(left) < 7000
        # Bounded: however many submissions, only a few keep 64 KiB outputs.
        assert await counter(session, user.id) < 3 * 2 * 3 * BIG + 12 * 2 * 7000
        assert await counter(session, other.id) == 0


async def test_two_processes_recording_at_once(engine: AsyncEngine) -> None:
    """Two web processes finish two submissions of one student at the same moment: the
    second waits for the first (the user's row is locked), then sees its work, so the
    earlier one is cut and nothing is counted twice. (SQLite has one writer at a time.)"""
    if engine.dialect.name != "postgresql":
        pytest.skip("only PostgreSQL lets two writers in at once")
    async with AsyncSession(engine, expire_on_commit=False) as setup:
        user = await create_user(session=setup, username=unique_name(), password="x" * 10)
        first = await submit(setup, user.id, "wrong_output")
        middle = await submit(setup, user.id, "wrong_output", finish=False)
        last = await submit(setup, user.id, "wrong_output", finish=False)
        await setup.commit()
    try:
        async with (
            AsyncSession(engine) as one,
            AsyncSession(engine) as two,
        ):
            await recording.record_runs(
                session=one,
                submission_id=middle,
                runs=[big_run(d, "wrong_output") for d in ("cpu", "cuda")],
            )
            racing = asyncio.create_task(
                recording.record_runs(
                    session=two,
                    submission_id=last,
                    runs=[big_run(d, "wrong_output") for d in ("cpu", "cuda")],
                )
            )
            await asyncio.sleep(0.5)
            assert not racing.done()  # waiting for the first to commit
            await one.commit()
            assert await racing == "recorded"
            await two.commit()
        async with AsyncSession(engine) as check:
            for ident, kept in ((first, False), (middle, False), (last, True)):
                truncated, runs = await runs_of(check, ident)
                assert truncated is not kept and (is_full(runs) if kept else is_cut(runs))
            assert await counter(check, user.id) == await real_stored_bytes(check, user.id)
    finally:
        async with AsyncSession(engine) as cleanup:
            await cleanup.execute(delete(User).where(User.id == user.id))
            await cleanup.commit()


async def test_lists_come_in_small_pages(client: httpx.AsyncClient, db: Database) -> None:
    username, token = await register(client)
    async with db.writer() as session:
        user_id = await session.scalar(select(User.id).where(User.username == username))
        assert user_id is not None
        ids = [await submit(session, user_id, "wrong_output") for _ in range(24)]
        await session.commit()
    url = f"/api/exercises/{EXERCISE}/submissions"
    first = await client.get(url, headers=bearer(token))
    assert first.status_code == 200
    assert [s["id"] for s in first.json()] == ids[::-1][:20]
    # Every submission printed 64 KiB on each output, on two devices; the page stays small.
    assert len(first.content) < 300_000
    assert all(run["truncated"] for s in first.json() for run in s["runs"])
    assert [s["output_truncated"] for s in first.json()] == [False] + [True] * 19
    link = first.headers["link"]
    match = re.fullmatch(r'<http://testserver(/[^>]+)>; rel="next"', link)
    assert match, link
    second = await client.get(match.group(1), headers=bearer(token))
    assert [s["id"] for s in second.json()] == ids[::-1][20:]
    assert "link" not in second.headers
    small = await client.get(f"{url}?limit=3&before={ids[10]}", headers=bearer(token))
    assert [s["id"] for s in small.json()] == [ids[9], ids[8], ids[7]]
    # The latest keeps its full output when asked for on its own.
    alone = await client.get(f"/api/submissions/{ids[-1]}", headers=bearer(token))
    assert all(len(run["stdout"]) == BIG for run in alone.json()["runs"])
    for bad in ("limit=0", "limit=101", "before=0", "before=x", "before=99999999999"):
        response = await client.get(f"{url}?{bad}", headers=bearer(token))
        assert response.status_code == 422, bad
        assert bad.split("=")[0] in response.text
    # The lesson page shows the last ten only.
    page = await client.get(f"/lessons/{LESSON}", headers=bearer(token))
    assert page.status_code == 200
    assert len(re.findall(r'<details class="submission[^"]*" data-submission=', page.text)) == 10


async def test_a_teachers_list_of_a_student_comes_in_pages(
    client: httpx.AsyncClient, db: Database
) -> None:
    world = await build_world(db)
    async with db.writer() as session:
        ids = [await submit(session, world.member.id, "wrong_output") for _ in range(7)]
        await session.commit()
    base = f"/api/classes/{world.class_id}/students/{world.member.id}/submissions"
    seen: list[int] = []
    url: str | None = f"{base}?limit=3&lesson={LESSON}"
    while url:
        response = await client.get(url, headers=world.teacher.headers)
        assert response.status_code == 200
        page = response.json()
        assert len(page) <= 3 and all(s["code"] for s in page)
        assert all(run["truncated"] for s in page for run in s["runs"])
        seen += [s["id"] for s in page]
        link = response.headers.get("link")
        url = None
        if link:
            match = re.fullmatch(r'<http://testserver(/[^>]+)>; rel="next"', link)
            assert match, link
            url = match[1]
    assert seen == ids[::-1]
    default = await client.get(base, headers=world.teacher.headers)
    assert len(default.json()) == 7 and "link" not in default.headers
    assert (await client.get(f"{base}?limit=101", headers=world.teacher.headers)).status_code == 422
    # One submission on its own: its stored output, in full for the latest.
    alone = await client.get(f"{base}/{ids[-1]}", headers=world.teacher.headers)
    assert alone.status_code == 200
    assert all(len(run["stdout"]) == BIG for run in alone.json()["runs"])
    older = await client.get(f"{base}/{ids[0]}", headers=world.teacher.headers)
    assert older.json()["output_truncated"] is True
    # Another student's submission through this student's path: not found.
    async with db.writer() as session:
        theirs = await submit(session, world.outsider.id, "passed")
        await session.commit()
    response = await client.get(f"{base}/{theirs}", headers=world.teacher.headers)
    assert response.status_code == 404


async def test_metrics_show_stored_bytes(client: httpx.AsyncClient, db: Database) -> None:
    async with db.writer() as session:
        big = await create_user(session=session, username=unique_name("big"), password="x" * 10)
        small = await create_user(session=session, username=unique_name("sm"), password="x" * 10)
        await issue_token(session=session, user=big)
        for _ in range(3):
            await submit(session, big.id, "wrong_output")
        await submit(session, small.id, "passed", finish=False)
        await session.commit()
        stored = {user_id: await counter(session, user_id) for user_id in (big.id, small.id)}
        total = int(sum(await session.scalars(select(User.stored_bytes))))
        assert stored[big.id] == await real_stored_bytes(session, big.id)
    text = (await client.get("/metrics")).text
    assert metric(text, "tensorcamp_stored_bytes") == total
    assert metric(text, "tensorcamp_stored_bytes_max_user") == stored[big.id]
    assert (
        metric(text, "tensorcamp_stored_bytes_user", user_id=str(big.id), username=big.username)
        == stored[big.id]
    )
    assert len(re.findall(r"^tensorcamp_stored_bytes_user\{", text, re.M)) <= 10


# --- the migration: what was stored before it is counted once, and kept once --------------

META = sa.MetaData()
OLD_COLUMNS: dict[str, dict[str, Any]] = {
        "tracks": {"slug": sa.String, "title": sa.String, "level": sa.String,
                   "position": sa.Integer, "retired": sa.Boolean},
        "lessons": {"slug": sa.String, "track_slug": sa.String, "position": sa.Integer,
                    "title": sa.String, "level": sa.String, "summary": sa.Text,
                    "prerequisites": sa.JSON, "body_html": sa.Text, "translations": sa.JSON,
                    "retired": sa.Boolean},
        "exercises": {"id": sa.String, "lesson_slug": sa.String, "position": sa.Integer,
                      "title": sa.String, "prompt_html": sa.Text, "starter_code": sa.Text,
                      "solution_code": sa.Text, "expected_output": sa.Text,
                      "devices": sa.JSON, "comparison": sa.JSON, "limits": sa.JSON,
                      "retired": sa.Boolean},
        "users": {"id": sa.Integer, "username": sa.String, "password_hash": sa.String,
                  "role": sa.String, "created_at": sa.DateTime(timezone=True)},
        "submissions": {"id": sa.Integer, "user_id": sa.Integer, "exercise_id": sa.String,
                        "code": sa.Text, "mode": sa.String, "status": sa.String,
                        "verdict": sa.String, "devices": sa.JSON, "runs": sa.JSON,
                        "attempts": sa.Integer, "created_at": sa.DateTime(timezone=True)},
        "submission_runs": {"id": sa.Integer, "submission_id": sa.Integer,
                            "device": sa.String, "run": sa.JSON,
                            "created_at": sa.DateTime(timezone=True)},
}  # fmt: skip
OLD = {
    name: sa.Table(name, META, *(sa.Column(c, t) for c, t in columns.items()))
    for name, columns in OLD_COLUMNS.items()
}


async def test_the_migration_counts_what_was_stored_and_keeps_it_once(
    empty_database_url: str,
) -> None:
    config = alembic_config(empty_database_url)
    await asyncio.to_thread(command.upgrade, config, "0004")
    engine = make_engine(Settings(database_url=empty_database_url).effective_database_url)
    now = datetime.now(UTC)
    finished = [big_run("cpu", "wrong_output"), big_run("cuda", "not_graded")]
    partial = big_run("cpu", "passed")
    try:
        async with engine.begin() as connection:
            old_rows: dict[str, list[dict[str, Any]]] = {
                "tracks": [
                    {"slug": "t", "title": "T", "level": "l", "position": 0, "retired": False}
                ],
                "lessons": [
                    {
                        "slug": "l",
                        "track_slug": "t",
                        "position": 0,
                        "title": "L",
                        "level": "l",
                        "summary": "",
                        "prerequisites": [],
                        "body_html": "",
                        "translations": {},
                        "retired": False,
                    }
                ],
                "exercises": [
                    {
                        "id": "e",
                        "lesson_slug": "l",
                        "position": 0,
                        "title": "E",
                        "prompt_html": "",
                        "starter_code": "",
                        "solution_code": "",
                        "expected_output": "",
                        "devices": ["cpu", "cuda"],
                        "comparison": {},
                        "limits": {},
                        "retired": False,
                    }
                ],
                "users": [
                    {
                        "id": i,
                        "username": f"u{i}",
                        "password_hash": "x",
                        "role": "student",
                        "created_at": now,
                    }
                    for i in (1, 2)
                ],
                "submissions": [
                    {
                        "id": 1,
                        "user_id": 1,
                        "exercise_id": "e",
                        "code": "é" * 10,
                        "mode": "grade",
                        "status": "done",
                        "verdict": "wrong_output",
                        "devices": ["cpu", "cuda"],
                        "runs": finished,
                        "attempts": 1,
                        "created_at": now,
                    },
                    {
                        "id": 2,
                        "user_id": 1,
                        "exercise_id": "e",
                        "code": "x",
                        "mode": "grade",
                        "status": "running",
                        "verdict": None,
                        "devices": ["cpu", "cuda"],
                        "runs": [],
                        "attempts": 1,
                        "created_at": now,
                    },
                ],
                "submission_runs": [
                    {
                        "id": 1,
                        "submission_id": 1,
                        "device": "cpu",
                        "run": finished[0],
                        "created_at": now,
                    },
                    {
                        "id": 2,
                        "submission_id": 1,
                        "device": "cuda",
                        "run": finished[1],
                        "created_at": now,
                    },
                    {
                        "id": 3,
                        "submission_id": 2,
                        "device": "cpu",
                        "run": partial,
                        "created_at": now,
                    },
                ],
            }
            for name, rows in old_rows.items():
                await connection.execute(OLD[name].insert(), rows)
        await asyncio.to_thread(command.upgrade, config, "0005")
        async with AsyncSession(engine) as session:
            assert await counter(session, 1) == await real_stored_bytes(session, 1)
            assert await counter(session, 1) == (
                20 + 1 + output_size(finished[0]) + output_size(finished[1]) + output_size(partial)
            )
            assert await counter(session, 2) == 0
            stored = (await session.execute(select(SubmissionRun.id, SubmissionRun.run))).all()
            copies: dict[int, Any] = {row_id: run for row_id, run in stored}
            assert output_size(copies[1]) == 0 and copies[1]["verdict"] == "wrong_output"
            assert copies[3] == partial  # the unfinished one still needs its run
            assert (await runs_of(session, 1)) == (False, finished)
        # Down and up again: no table is copied, so nothing cascades away.
        await asyncio.to_thread(command.downgrade, config, "0004")
        await asyncio.to_thread(command.upgrade, config, "0005")
        async with AsyncSession(engine) as session:
            assert len((await session.scalars(select(SubmissionRun.id))).all()) == 3
        # The later migrations alter tables these rows refer to: on SQLite a table rebuild
        # would fail on the foreign keys or cascade the submissions away.
        for target in ("head", "0005", "head"):
            step = command.upgrade if target == "head" else command.downgrade
            await asyncio.to_thread(step, config, target)
        async with AsyncSession(engine) as session:
            assert len((await session.scalars(select(SubmissionRun.id))).all()) == 3
    finally:
        await engine.dispose()
