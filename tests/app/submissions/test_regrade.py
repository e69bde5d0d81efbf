"""Regrades end to end on a live app (real sandbox, embedded grader): an exercise's expected
output changes, its stored submissions are graded again in the background, the teacher sees
whose result flips in each class, nothing changes until the regrade is applied, and live
submissions are graded first meanwhile. Also: a content sync that changes what grading
compares makes a pending regrade, never an applied one."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import insert, select, update

from app.content import Catalog, sync_catalog
from app.db import Database
from app.models import (
    Exercise,
    Regrade,
    RegradeStatus,
    Role,
    Submission,
    SubmissionMode,
    SubmissionRun,
    SubmissionStatus,
    User,
    Verdict,
    utcnow,
)
from tests.app.submissions.conftest import running_app
from tests.app.submissions.test_api import EXERCISE, SOLUTION, submit_and_wait
from tests.helpers import make_student, make_teacher

CHANGED = 'print("changed")\n'


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
async def regrade_app(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[FastAPI]:
    tmp: Path = tmp_path_factory.mktemp("regrade")
    async with running_app(request.param, tmp, submissions_per_minute=60) as app:
        yield app


@pytest.fixture
async def live(regrade_app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=regrade_app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        yield client


async def class_with(
    client: httpx.AsyncClient, teacher: dict[str, str], *students: dict[str, str]
) -> int:
    made = await client.post("/api/classes", json={"name": "Regrade class"}, headers=teacher)
    assert made.status_code == 201, made.text
    for student in students:
        joined = await client.post(
            "/api/classes/join", json={"join_code": made.json()["join_code"]}, headers=student
        )
        assert joined.status_code == 200, joined.text
    class_id: int = made.json()["id"]
    return class_id


async def passed_in_lesson(client: httpx.AsyncClient, headers: dict[str, str]) -> int:
    lessons = (await client.get("/api/me/progress", headers=headers)).json()["lessons"]
    passed: int = next(p for p in lessons if p["slug"] == "gpu-support")["exercises_passed"]
    return passed


async def until_ready(
    client: httpx.AsyncClient, headers: dict[str, str], regrade_id: int
) -> dict[str, Any]:
    for _ in range(600):
        body: dict[str, Any] = (
            await client.get(f"/api/regrades/{regrade_id}", headers=headers)
        ).json()
        if body["status"] == RegradeStatus.READY:
            return body
        await asyncio.sleep(0.1)
    raise AssertionError(f"regrade never ready: {body}")


async def test_a_changed_expected_output_is_previewed_then_applied(
    regrade_app: FastAPI, live: httpx.AsyncClient
) -> None:
    db: Database = regrade_app.state.database
    teacher, _ = await make_teacher(db)
    (ada, ada_id), (bob, bob_id), (cem, _) = [await make_student(db) for _ in range(3)]
    class_id = await class_with(live, teacher, ada, bob)  # cem is in no class of theirs
    ada_sub = await submit_and_wait(live, ada, SOLUTION)
    bob_sub = await submit_and_wait(live, bob, CHANGED)
    await submit_and_wait(live, cem, SOLUTION)
    assert (ada_sub["verdict"], bob_sub["verdict"]) == (Verdict.PASSED, Verdict.WRONG_OUTPUT)
    assert (await passed_in_lesson(live, ada), await passed_in_lesson(live, bob)) == (1, 0)

    async with db.writer() as session, session.begin():
        await session.execute(
            update(Exercise).where(Exercise.id == EXERCISE).values(expected_output="changed")
        )
    made = await live.post(
        f"/api/exercises/{EXERCISE}/regrades", json={"reason": "Typo in expected"}, headers=teacher
    )
    assert made.status_code == 202, made.text
    assert made.json()["total"] == 3
    assert made.json()["status"] in (RegradeStatus.PENDING, RegradeStatus.RUNNING)
    preview = await until_ready(live, teacher, made.json()["id"])

    assert (preview["graded"], preview["errors"], preview["changed"]) == (3, 0, 3)
    assert (preview["to_failed"], preview["to_passed"]) == (2, 1)  # ada and cem; bob
    [flips] = preview["classes"]
    assert flips["class_id"] == class_id
    assert [s["id"] for s in flips["to_failed"]] == [ada_id]
    assert [s["id"] for s in flips["to_passed"]] == [bob_id]
    # Nothing changed before apply: verdicts, runs, progress.
    again = (await live.get(f"/api/submissions/{ada_sub['id']}", headers=ada)).json()
    assert again["verdict"] == Verdict.PASSED and again["runs"] == ada_sub["runs"]
    assert (await passed_in_lesson(live, ada), await passed_in_lesson(live, bob)) == (1, 0)
    # Another teacher sees the counts but none of this teacher's classes.
    other, _ = await make_teacher(db)
    theirs = (await live.get(f"/api/regrades/{made.json()['id']}", headers=other)).json()
    assert theirs["classes"] == [] and theirs["to_failed"] == 2

    applied = await live.post(f"/api/regrades/{made.json()['id']}/apply", headers=teacher)
    assert applied.status_code == 200, applied.text
    assert applied.json()["status"] == RegradeStatus.APPLIED
    after = (await live.get(f"/api/submissions/{ada_sub['id']}", headers=ada)).json()
    assert after["verdict"] == Verdict.WRONG_OUTPUT
    bob_after = (await live.get(f"/api/submissions/{bob_sub['id']}", headers=bob)).json()
    assert bob_after["verdict"] == Verdict.PASSED
    assert (await passed_in_lesson(live, ada), await passed_in_lesson(live, bob)) == (0, 1)
    async with db.sessionmaker() as session:
        rows = (
            await session.execute(
                select(SubmissionRun.regrade_id).where(SubmissionRun.submission_id == ada_sub["id"])
            )
        ).scalars()
        marks = sorted(rows, key=lambda mark: mark or 0)
    # The old runs stay; the regrade's sit beside them, marked.
    assert marks[0] is None and made.json()["id"] in marks
    twice = await live.post(f"/api/regrades/{made.json()['id']}/apply", headers=teacher)
    assert twice.status_code == 409
    student = await live.post(f"/api/regrades/{made.json()['id']}/apply", headers=ada)
    assert student.status_code == 403


async def seed(db: Database, *, exercise_id: str, user_id: int, count: int) -> None:
    now = utcnow()
    async with db.writer() as session, session.begin():
        await session.execute(
            insert(Submission),
            [
                {"user_id": user_id, "exercise_id": exercise_id, "code": f"print({i})",
                 "mode": SubmissionMode.GRADE, "status": SubmissionStatus.DONE,
                 "verdict": Verdict.WRONG_OUTPUT, "devices": ["cpu"], "runs": [],
                 "created_at": now, "dispatched_at": now, "finished_at": now}
                for i in range(count)
            ],
        )  # fmt: skip


async def test_live_submissions_are_graded_first_while_a_regrade_runs(
    regrade_app: FastAPI, live: httpx.AsyncClient
) -> None:
    db: Database = regrade_app.state.database
    teacher, _ = await make_teacher(db)
    student, student_id = await make_student(db)
    async with db.sessionmaker() as session:
        other = await session.scalar(
            select(Exercise.id).where(Exercise.id != EXERCISE).order_by(Exercise.id).limit(1)
        )
    assert other is not None
    await seed(db, exercise_id=other, user_id=student_id, count=40)
    made = await live.post(f"/api/exercises/{other}/regrades", json={}, headers=teacher)
    assert made.status_code == 202
    await asyncio.sleep(0.3)  # the regrade has begun
    submitted = await submit_and_wait(live, student, SOLUTION)
    ready = await until_ready(live, teacher, made.json()["id"])
    async with db.sessionmaker() as session:
        regrade = await session.get_one(Regrade, made.json()["id"])
        finished = await session.get_one(Submission, submitted["id"])
    assert regrade.ready_at is not None and finished.finished_at is not None
    # The live one did not wait for the 40 regrade jobs.
    assert finished.finished_at < regrade.ready_at
    assert ready["graded"] == 40


async def test_a_sync_that_changes_grading_makes_a_pending_regrade(
    db: Database, content_catalog: Catalog
) -> None:
    async with db.writer() as session, session.begin():
        user = User(username="regrade-sync", password_hash="x", role=Role.STUDENT)
        session.add(user)
        await session.flush()
        exercise = await session.get_one(Exercise, EXERCISE)
        session.add(
            Submission(
                user_id=user.id, exercise_id=EXERCISE, code="print(1)",
                status=SubmissionStatus.DONE, verdict=Verdict.WRONG_OUTPUT, devices=["cpu"],
            )
        )  # fmt: skip
        exercise.expected_output = "an older version"
    async with db.writer() as session, session.begin():
        await sync_catalog(session=session, catalog=content_catalog)
    async with db.sessionmaker() as session:
        made = (await session.scalars(select(Regrade))).all()
    assert [(r.exercise_id, r.status, r.requested_by, r.total) for r in made] == [
        (EXERCISE, RegradeStatus.PENDING, None, 1)
    ]
    # The same content again changes nothing: no second regrade.
    async with db.writer() as session, session.begin():
        await sync_catalog(session=session, catalog=content_catalog)
    async with db.sessionmaker() as session:
        assert len((await session.scalars(select(Regrade))).all()) == 1
