"""A student whose submission waits in the graders' line sees about how long it will wait:
`wait_estimate_s` = position × the recent mean run time ÷ the submissions running now,
null while nothing has been graded and outside the line. Grading is off here, so that the
line stands still and the history is exactly what the test writes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from app.models import Submission, SubmissionStatus, Verdict, utcnow
from tests.app.submissions.conftest import running_app
from tests.app.submissions.test_api import EXERCISE, SOLUTION
from tests.helpers import make_student


@pytest.fixture(params=["sqlite", "postgresql"])
async def still_app(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[FastAPI]:
    tmp: Path = tmp_path_factory.mktemp("estimate")
    async with running_app(
        request.param, tmp, grading_enabled=False, submissions_per_minute=100
    ) as app:
        yield app


@pytest.fixture
async def still(still_app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=still_app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        yield client


async def history(app: FastAPI, *, spans_s: list[float], status: SubmissionStatus) -> None:
    """Rows of another student that ran for `spans_s`, finished (`status`) or running."""
    _headers, user_id = await make_student(app.state.database)
    now = utcnow()
    async with app.state.database.writer() as session, session.begin():
        for span in spans_s:
            finished = status in SubmissionStatus.FINISHED
            session.add(
                Submission(
                    user_id=user_id,
                    exercise_id=EXERCISE,
                    code="print(1)",
                    status=status,
                    verdict=Verdict.PASSED if status == SubmissionStatus.DONE else None,
                    dispatched_at=now - timedelta(seconds=span + 1),
                    started_at=now - timedelta(seconds=span),
                    finished_at=now if finished else None,
                )
            )


async def submit(client: httpx.AsyncClient, headers: dict[str, str]) -> dict:
    response = await client.post(
        f"/api/exercises/{EXERCISE}/submissions", json={"code": SOLUTION}, headers=headers
    )
    assert response.status_code == 202, response.text
    return response.json()


async def look(client: httpx.AsyncClient, headers: dict[str, str], ident: int) -> dict:
    response = await client.get(f"/api/submissions/{ident}", headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


async def test_unknown_until_something_was_graded(
    still_app: FastAPI, still: httpx.AsyncClient
) -> None:
    headers, _ = await make_student(still_app.state.database)
    body = await submit(still, headers)
    assert (body["position"], body["wait_estimate_s"]) == (1, None)
    assert (await look(still, headers, body["id"]))["wait_estimate_s"] is None


async def test_position_times_mean_run_over_graders_running(
    still_app: FastAPI, still: httpx.AsyncClient
) -> None:
    # A mean of 2 s over what was graded; a platform error's time says nothing of runs.
    await history(still_app, spans_s=[1.0, 3.0, 2.0], status=SubmissionStatus.DONE)
    await history(still_app, spans_s=[60.0], status=SubmissionStatus.ERROR)
    first, _ = await make_student(still_app.state.database)
    second, _ = await make_student(still_app.state.database)
    ahead = await submit(still, first)
    # Nothing runs now: one grader takes the next.
    assert (ahead["position"], ahead["wait_estimate_s"]) == (1, 2.0)
    behind = await submit(still, second)
    assert (behind["position"], behind["wait_estimate_s"]) == (2, 4.0)

    await history(still_app, spans_s=[0.5, 0.5], status=SubmissionStatus.RUNNING)
    assert (await look(still, first, ahead["id"]))["wait_estimate_s"] == 1.0
    assert (await look(still, second, behind["id"]))["wait_estimate_s"] == 2.0
    listed = await still.get(f"/api/exercises/{EXERCISE}/submissions", headers=second)
    assert [s["wait_estimate_s"] for s in listed.json()] == [2.0]


async def test_none_while_waiting_for_own(still_app: FastAPI, still: httpx.AsyncClient) -> None:
    await history(still_app, spans_s=[2.0], status=SubmissionStatus.DONE)
    headers, _ = await make_student(still_app.state.database)
    await submit(still, headers)
    later = await submit(still, headers)
    assert (later["waiting_for_own"], later["position"]) == (1, None)
    assert later["wait_estimate_s"] is None
    looked = await look(still, headers, later["id"])
    assert (looked["waiting_for_own"], looked["wait_estimate_s"]) == (1, None)
