"""Fair grading in embedded mode, through the real sandboxed grader: one student's slow
submissions wait behind each other instead of in front of everyone else; a student sees
when a submission waits for their own earlier one; `?wait=` on the POST answers with the
verdict in one round trip."""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import event, select

from app.models import Exercise, Submission
from tests.app.submissions.conftest import running_app
from tests.app.submissions.test_api import EXERCISE, SOLUTION
from tests.helpers import browser_signup, csrf_from, make_student

WALL_S = 1.0  # this module's wall-time limit for the exercise: a sleeper ends this soon
MARGIN_S = 1.5  # what a verdict may take beyond one run that was ahead of it
SLEEPER = "import time\ntime.sleep(100)\n"
LESSON = "/lessons/gpu-support"


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
async def fair_app(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[FastAPI]:
    """One sandbox, so that whatever is handed to the grader really queues for it."""
    tmp: Path = tmp_path_factory.mktemp("fair")
    async with running_app(request.param, tmp, submissions_per_minute=100, grader_workers=1) as app:
        database = app.state.database
        async with database.writer() as session, session.begin():
            exercise = await session.get_one(Exercise, EXERCISE)
            exercise.limits = {**exercise.limits, "wall_time_s": WALL_S}
        for _ in range(600):  # the warm interpreters take seconds to start
            if await app.state.grading.ready():
                break
            await asyncio.sleep(0.1)
        yield app


@pytest.fixture
async def fair(fair_app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=fair_app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        yield client


async def submit(
    client: httpx.AsyncClient, headers: dict[str, str], code: str, path: str = "submissions"
) -> dict:
    response = await client.post(
        f"/api/exercises/{EXERCISE}/{path}", json={"code": code}, headers=headers
    )
    assert response.status_code == 202, response.text
    return response.json()


async def finished(client: httpx.AsyncClient, headers: dict[str, str], ident: int) -> dict:
    for _ in range(20):
        response = await client.get(f"/api/submissions/{ident}?wait=30", headers=headers)
        assert response.status_code == 200, response.text
        if response.json()["status"] in ("done", "error"):
            return response.json()
    raise AssertionError(f"submission {ident} never finished")


async def rows(app: FastAPI, ids: list[int]) -> list[Submission]:
    async with app.state.database.sessionmaker() as session:
        found = await session.scalars(
            select(Submission).where(Submission.id.in_(ids)).order_by(Submission.id)
        )
        return list(found)


async def test_six_sleepers_of_one_student_hold_up_another_for_one_run_at_most(
    fair: httpx.AsyncClient, fair_app: FastAPI
) -> None:
    hog, _ = await make_student(fair_app.state.database)
    honest, _ = await make_student(fair_app.state.database)
    sleepers = [await submit(fair, hog, SLEEPER) for _ in range(6)]
    # The first goes to the grader; each later one waits behind the hog's own earlier ones.
    assert sleepers[0]["waiting_for_own"] is None
    assert sleepers[0]["position"] is not None
    for ahead, body in enumerate(sleepers[1:], start=1):
        assert (body["status"], body["position"], body["waiting_for_own"]) == (
            "queued",
            None,
            ahead,
        )
    started = time.monotonic()
    mine = await submit(fair, honest, SOLUTION)
    assert mine["waiting_for_own"] is None
    result = await finished(fair, honest, mine["id"])
    took = time.monotonic() - started
    assert result["verdict"] == "passed"
    assert took < WALL_S + MARGIN_S, f"the honest verdict took {took:.1f} s"

    later = (await fair.get(f"/api/submissions/{sleepers[-1]['id']}", headers=hog)).json()
    if later["status"] == "queued":
        assert later["waiting_for_own"] >= 1
    outcomes = [await finished(fair, hog, body["id"]) for body in sleepers]
    assert [body["verdict"] for body in outcomes] == ["timeout"] * 6
    # One at a time: each was handed to the grader only once the one before had finished.
    stored = await rows(fair_app, [body["id"] for body in sleepers])
    for earlier, next_one in itertools.pairwise(stored):
        assert earlier.finished_at is not None and next_one.dispatched_at is not None
        assert next_one.dispatched_at >= earlier.finished_at


async def test_a_try_out_waits_behind_a_graded_submission_and_the_list_says_so(
    fair: httpx.AsyncClient, fair_app: FastAPI
) -> None:
    headers, _ = await make_student(fair_app.state.database)
    slow = await submit(fair, headers, SLEEPER)
    run = await submit(fair, headers, "print('trying')", path="runs")
    assert (run["status"], run["position"], run["waiting_for_own"]) == ("queued", None, 1)
    listed = (await fair.get(f"/api/exercises/{EXERCISE}/submissions", headers=headers)).json()
    assert [(s["id"], s["waiting_for_own"]) for s in listed] == [(run["id"], 1), (slow["id"], None)]
    done = await finished(fair, headers, run["id"])
    assert done["runs"][0]["stdout"] == "trying\n"
    assert done["waiting_for_own"] is None and done["position"] is None
    assert (await finished(fair, headers, slow["id"]))["verdict"] == "timeout"


@pytest.mark.parametrize(
    ("language", "sentence"),
    [
        ("en", "Waiting for your earlier submission to finish"),
        ("tr", "Önceki gönderiminizin bitmesi bekleniyor"),
    ],
)
async def test_the_page_says_a_submission_waits_for_the_students_earlier_one(
    fair: httpx.AsyncClient, language: str, sentence: str
) -> None:
    await browser_signup(fair)
    token = csrf_from((await fair.get(LESSON)).text)
    for code in (SLEEPER, SOLUTION):
        response = await fair.post(
            f"/exercises/{EXERCISE}/submissions", data={"code": code, "csrf_token": token}
        )
        assert response.status_code == 303
    page = await fair.get(f"{LESSON}?lang={language}")
    assert f'<span class="badge">{sentence}</span>' in page.text
    # The script's own copy of the sentence, for the live status.
    messages = re.search(
        r'<script type="application/json" id="i18n-messages">(.*?)</script>', page.text
    )
    assert messages is not None
    assert json.loads(messages.group(1))["waiting_for_own"] == sentence


async def test_post_with_wait_answers_the_verdict_in_one_round_trip(
    fair: httpx.AsyncClient, fair_app: FastAPI
) -> None:
    headers, _ = await make_student(fair_app.state.database)
    response = await fair.post(
        f"/api/exercises/{EXERCISE}/submissions?wait=30", json={"code": SOLUTION}, headers=headers
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["status"], body["verdict"]) == ("done", "passed")
    assert body["runs"][0]["stdout"] == "[[3.0, 3.0, 3.0], [3.0, 3.0, 3.0]]\ncpu\n"
    assert body["position"] is None and body["finished_at"] is not None
    again = await fair.get(f"/api/submissions/{body['id']}", headers=headers)
    assert again.json() == body

    response = await fair.post(
        f"/api/exercises/{EXERCISE}/runs?wait=30", json={"code": "print(6 * 7)"}, headers=headers
    )
    assert response.status_code == 200, response.text
    assert response.json()["runs"][0]["stdout"] == "42\n"
    assert response.json()["mode"] == "run"
    assert len(fair_app.state.grading.notifier) == 0


async def test_post_with_wait_answers_202_when_the_wait_runs_out(
    fair: httpx.AsyncClient, fair_app: FastAPI
) -> None:
    headers, _ = await make_student(fair_app.state.database)
    started = time.monotonic()
    response = await fair.post(
        f"/api/exercises/{EXERCISE}/submissions?wait=0.3", json={"code": SLEEPER}, headers=headers
    )
    assert time.monotonic() - started < WALL_S
    assert response.status_code == 202, response.text
    assert response.json()["status"] in ("queued", "running")
    # Behind it, a second one waits the whole `wait` and says why.
    response = await fair.post(
        f"/api/exercises/{EXERCISE}/submissions?wait=0.3", json={"code": SOLUTION}, headers=headers
    )
    assert response.status_code == 202
    assert (response.json()["status"], response.json()["waiting_for_own"]) == ("queued", 1)
    assert (await finished(fair, headers, response.json()["id"]))["verdict"] == "passed"


@pytest.mark.parametrize("wait", ["31", "-1", "soon"])
async def test_a_bad_wait_is_refused_naming_it(
    fair: httpx.AsyncClient, fair_app: FastAPI, wait: str
) -> None:
    headers, _ = await make_student(fair_app.state.database)
    for path in ("submissions", "runs"):
        response = await fair.post(
            f"/api/exercises/{EXERCISE}/{path}?wait={wait}", json={"code": "pass"}, headers=headers
        )
        assert response.status_code == 422
        assert response.json()["detail"][0]["loc"] == ["query", "wait"]


class Statements:
    """Every SQL statement the app runs, on each of its engines (SQLite has a writer)."""

    def __init__(self, app: FastAPI) -> None:
        database = app.state.database
        writer = database.writer.kw.get("bind")
        self.engines = {database.engine.sync_engine}
        if writer is not None:
            self.engines.add(writer.sync_engine)
        self.seen: list[str] = []
        self.tasks: list[str] = []  # the name of the asyncio task that ran each one

    def _record(self, *args: Any) -> None:
        statement: str = args[2]  # (conn, cursor, statement, parameters, context, many)
        self.seen.append(" ".join(statement.split()))
        task = asyncio.current_task()
        self.tasks.append(task.get_name() if task else "")

    def __enter__(self) -> list[str]:
        for engine in self.engines:
            event.listen(engine, "before_cursor_execute", self._record)
        return self.seen

    def __exit__(self, *_: object) -> None:
        for engine in self.engines:
            event.remove(engine, "before_cursor_execute", self._record)


async def test_one_round_trip_costs_fewer_statements_and_reads_nothing_back(
    fair: httpx.AsyncClient, fair_app: FastAPI
) -> None:
    """POST ?wait: the verdict comes from the grading task itself, not from reading the
    row again after it was written; the old way (POST, then GET ?wait) costs more."""
    headers, _ = await make_student(fair_app.state.database)
    await finished(fair, headers, (await submit(fair, headers, SOLUTION))["id"])  # warm

    with Statements(fair_app) as one_trip:
        response = await fair.post(
            f"/api/exercises/{EXERCISE}/submissions?wait=30",
            json={"code": SOLUTION},
            headers=headers,
        )
        assert response.status_code == 200
    with Statements(fair_app) as two_trips:
        await finished(fair, headers, (await submit(fair, headers, SOLUTION))["id"])
    await asyncio.sleep(0.1)  # the second's grading task is done writing

    assert len(one_trip) < len(two_trips), (one_trip, two_trips)
    finish = max(
        i for i, sql in enumerate(one_trip) if sql.startswith("UPDATE submissions SET status")
    )
    after = [sql for sql in one_trip[finish:] if sql.startswith("SELECT")]
    assert not any("FROM submissions WHERE submissions.id =" in sql for sql in after), after
    inserts = [sql for sql in one_trip if sql.startswith("INSERT INTO submissions ")]
    assert len(inserts) == 1
    # Handed over at once: no UPDATE of the new row to mark it sent, no read of it back.
    reads_of_the_row = [
        sql for sql in one_trip if sql.startswith("SELECT submissions.id, submissions.user_id")
    ]
    assert len(reads_of_the_row) <= 1, reads_of_the_row  # recording locks it once


# What one graded submission (POST ?wait, a student with an earlier one) may cost, BEGINs
# included: the token's look-up; the admission counts (the exercise with them), the INSERT
# and the storage count in the first write transaction; the claim in the second; the
# row's lock, the runs, the storage count, the finish, the compaction of the earlier
# attempt (one statement: its output was short), the student's record of the exercise
# (app/item_progress.py: one upsert, what the class grid reads), the LMS gradebook's look-up
# and the release of the student's next in the third. On PostgreSQL the student's row is
# locked in three places and there are no BEGIN statements.
MOST_STATEMENTS = {"sqlite": 17, "postgresql": 16}


async def test_a_graded_submission_costs_few_statements(
    fair: httpx.AsyncClient, fair_app: FastAPI
) -> None:
    """The exercise is read with the admission counts (no read transaction of its own),
    and a POST that waits for its verdict estimates no wait (nobody would see it)."""
    headers, _ = await make_student(fair_app.state.database)
    await finished(fair, headers, (await submit(fair, headers, SOLUTION))["id"])  # warm
    await asyncio.sleep(0.1)  # its grading task is done writing

    recorder = Statements(fair_app)
    with recorder:
        response = await fair.post(
            f"/api/exercises/{EXERCISE}/submissions?wait=30",
            json={"code": SOLUTION},
            headers=headers,
        )
        assert response.status_code == 200
        await asyncio.sleep(0.1)  # the grading task is done writing
    # The LMS outbox's poll (every few seconds, app/lti/background.py) may fall in between.
    statements = [
        sql
        for sql, task in zip(recorder.seen, recorder.tasks, strict=True)
        if task != "lti-background"
    ]

    backend = fair_app.state.database.engine.dialect.name
    assert len(statements) <= MOST_STATEMENTS[backend], "\n".join(statements)
    assert not any(sql.startswith("SELECT exercises.id") for sql in statements), statements
    estimate = "SELECT submissions.started_at, submissions.finished_at"
    assert not any(sql.startswith(estimate) for sql in statements), statements
    # Compaction still runs: the earlier attempt is marked (its output was short).
    assert any(sql.startswith("UPDATE submissions SET output_compacted") for sql in statements)


async def test_a_post_without_wait_still_estimates_its_wait(
    fair: httpx.AsyncClient, fair_app: FastAPI
) -> None:
    """Without `wait` the answer shows the place in line, estimate included."""
    headers, _ = await make_student(fair_app.state.database)
    await finished(fair, headers, (await submit(fair, headers, SOLUTION))["id"])  # a run time
    body = await submit(fair, headers, SOLUTION)
    assert body["position"] is not None
    assert body["wait_estimate_s"] is not None
    await finished(fair, headers, body["id"])


async def test_a_retired_or_unknown_exercise_is_not_found_before_any_limit(
    fair: httpx.AsyncClient, fair_app: FastAPI
) -> None:
    headers, _ = await make_student(fair_app.state.database)
    response = await fair.post(
        "/api/exercises/no-such/submissions?wait=30", json={"code": "pass"}, headers=headers
    )
    assert response.status_code == 404
    database = fair_app.state.database
    async with database.writer() as session, session.begin():
        exercise = await session.get_one(Exercise, EXERCISE)
        exercise.retired = True
    try:
        response = await fair.post(
            f"/api/exercises/{EXERCISE}/submissions", json={"code": "pass"}, headers=headers
        )
        assert response.status_code == 404
    finally:
        async with database.writer() as session, session.begin():
            exercise = await session.get_one(Exercise, EXERCISE)
            exercise.retired = False
