"""Hidden variants end to end: a live app (real sandbox) on a small course of its own whose
exercise sums `numbers`. Printing the visible expected output passes the example and fails a
hidden check; nothing of the hidden checks but their counts ever reaches the student, and the
teacher sees which one failed."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.auth.service import issue_token
from app.cli import main
from app.models import User
from tests.app.content.variant_content import (
    EXERCISE,
    HARD_CODED,
    LESSON,
    SOLUTION,
    VARIANT_NAMES,
    VARIANT_OUTPUTS,
    VARIANT_SETUPS,
    write_course,
)
from tests.app.submissions.conftest import running_app
from tests.helpers import bearer, register

SECRETS = (*VARIANT_NAMES, *VARIANT_SETUPS, *VARIANT_OUTPUTS, "hidden_runs", "4321", "-7000")
HIDDEN_FAILED = "Passed the example, failed a hidden check"


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
async def variants_app(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[FastAPI]:
    tmp: Path = tmp_path_factory.mktemp("variants")
    tree = write_course(tmp)
    # The expected outputs of the hidden variants, made by the real sandbox from the solution.
    assert main(["content", "check", "--run", "--write-variants", "--path", str(tree)]) == 0
    async with running_app(request.param, tmp, content_dir=tree, submissions_per_minute=30) as app:
        yield app


@pytest.fixture
async def live(variants_app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=variants_app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        yield client


def assert_nothing_hidden(text: str) -> None:
    for secret in SECRETS:
        assert secret not in text, f"{secret!r} reached the student"


async def finished(
    client: httpx.AsyncClient, headers: dict[str, str], code: str, kind: str = "submissions"
) -> httpx.Response:
    response = await client.post(
        f"/api/exercises/{EXERCISE}/{kind}", json={"code": code}, headers=headers
    )
    assert response.status_code == 202, response.text
    for _ in range(10):
        response = await client.get(
            f"/api/submissions/{response.json()['id']}?wait=30", headers=headers
        )
        if response.json()["status"] in ("done", "error"):
            return response
    raise AssertionError("never finished")


async def test_printing_the_visible_output_passes_the_example_but_fails_a_hidden_check(
    live: httpx.AsyncClient,
) -> None:
    _, token = await register(live)
    response = await finished(live, bearer(token), HARD_CODED)
    result = response.json()
    assert (result["status"], result["verdict"]) == ("done", "wrong_output")
    (run,) = result["runs"]  # one per device, for the visible example
    assert (run["device"], run["verdict"], run["stdout"], run["diff"]) == (
        "cpu",
        "passed",
        "total 6\n",
        "",
    )
    assert result["hidden_checks"] == {"passed": 0, "total": 2, "failed": None}
    assert_nothing_hidden(response.text)
    listed = await live.get(f"/api/exercises/{EXERCISE}/submissions", headers=bearer(token))
    assert listed.json()[0]["hidden_checks"]["total"] == 2
    assert_nothing_hidden(listed.text)
    progress = (await live.get("/api/me/progress", headers=bearer(token))).json()["lessons"]
    assert next(p for p in progress if p["slug"] == LESSON)["exercises_passed"] == 0


async def test_the_page_says_so_in_english_and_turkish(live: httpx.AsyncClient) -> None:
    _, token = await register(live)
    await finished(live, bearer(token), HARD_CODED)
    page = await live.get(f"/lessons/{LESSON}", headers=bearer(token))
    assert HIDDEN_FAILED in page.text
    assert "0 of 2 hidden checks passed." in page.text
    assert_nothing_hidden(page.text)
    turkish = await live.get(f"/lessons/{LESSON}?lang=tr", headers=bearer(token))
    assert "Örneği geçti, gizli bir kontrolde kaldı" in turkish.text
    assert "2 gizli kontrolden 0 tanesi geçti." in turkish.text


async def test_a_correct_program_passes_every_hidden_check(live: httpx.AsyncClient) -> None:
    _, token = await register(live)
    response = await finished(live, bearer(token), SOLUTION)
    result = response.json()
    assert (result["status"], result["verdict"]) == ("done", "passed")
    assert result["hidden_checks"] == {"passed": 2, "total": 2, "failed": None}
    assert_nothing_hidden(response.text)
    progress = (await live.get("/api/me/progress", headers=bearer(token))).json()["lessons"]
    assert next(p for p in progress if p["slug"] == LESSON)["exercises_passed"] == 1
    page = await live.get(f"/lessons/{LESSON}", headers=bearer(token))
    assert "The hidden checks with other inputs passed too (2 of 2)." in page.text


async def test_a_wrong_example_runs_no_hidden_check(live: httpx.AsyncClient) -> None:
    _, token = await register(live)
    result = (await finished(live, bearer(token), "print('total', 7)\n")).json()
    assert result["verdict"] == "wrong_output"
    assert "-total 6" in result["runs"][0]["diff"]
    assert result["hidden_checks"] is None


async def test_the_lesson_shows_the_example_setup_and_nothing_hidden(
    live: httpx.AsyncClient,
) -> None:
    response = await live.get(f"/api/lessons/{LESSON}")
    (exercise,) = response.json()["exercises"]
    assert exercise["setup"] == "numbers = [1, 2, 3]"
    assert exercise["expected_output"] == "total 6"
    assert_nothing_hidden(response.text)
    page = await live.get(f"/lessons/{LESSON}")
    assert "numbers = [1, 2, 3]" in page.text
    assert_nothing_hidden(page.text)


async def test_a_try_out_runs_after_the_example_setup(live: httpx.AsyncClient) -> None:
    _, token = await register(live)
    response = await finished(live, bearer(token), SOLUTION, kind="runs")
    result = response.json()
    assert (result["mode"], result["verdict"]) == ("run", "passed")
    assert result["runs"][0]["stdout"] == "total 6\n"
    assert result["hidden_checks"] is None


async def make_teacher(app: Any) -> dict[str, str]:
    async with app.state.database.writer() as session, session.begin():
        user = User(username=f"t{uuid.uuid4().hex[:10]}", password_hash="-", role="teacher")
        session.add(user)
        await session.flush()
        return bearer(await issue_token(session=session, user=user))


async def test_the_teacher_sees_which_hidden_check_failed(
    live: httpx.AsyncClient, variants_app: Any
) -> None:
    teacher = await make_teacher(variants_app)
    created = (await live.post("/api/classes", json={"name": "Sums"}, headers=teacher)).json()
    _, token = await register(live)
    student = bearer(token)
    joined = await live.post(
        "/api/classes/join", json={"join_code": created["join_code"]}, headers=student
    )
    assert joined.status_code == 200, joined.text
    student_id = (await live.get("/api/me", headers=student)).json()["id"]
    code = "print('total', sum(numbers) if len(numbers) != 2 else 0)\n"  # wrong when 2 numbers
    result = (await finished(live, student, code)).json()
    assert result["hidden_checks"] == {"passed": 1, "total": 2, "failed": None}

    base = f"/classes/{created['id']}/students/{student_id}"
    (listed,) = (await live.get(f"/api{base}/submissions", headers=teacher)).json()
    assert listed["hidden_checks"] == {"passed": 1, "total": 2, "failed": [VARIANT_NAMES[1]]}
    drilled = (await live.get(f"/api{base}/lessons/{LESSON}", headers=teacher)).json()
    (event,) = drilled["events"]
    assert event["submission"]["hidden_checks"]["failed"] == [VARIANT_NAMES[1]]
    page = await live.get(f"{base}/lessons/{LESSON}", headers=teacher)
    assert "Hidden checks: 1 of 2 passed." in page.text
    assert f"Failed: {VARIANT_NAMES[1]}" in page.text
