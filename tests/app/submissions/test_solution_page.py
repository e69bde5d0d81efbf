"""The lesson page shows an exercise's sample solution only once it was passed or given up."""

from __future__ import annotations

import httpx

from app.auth.service import create_user
from app.db import Database
from app.lessons.catalog import live_exercise
from app.models.states import Verdict
from app.submissions import service
from tests.helpers import browser_signup, csrf_from

EXERCISE = "gpu-support-device-independent"
SOLUTION_MARK = 'class="solution"'


async def test_giving_up_on_the_page_shows_the_solution(client: httpx.AsyncClient) -> None:
    await browser_signup(client)
    page = await client.get("/lessons/gpu-support")
    assert SOLUTION_MARK not in page.text
    response = await client.post(
        f"/exercises/{EXERCISE}/give-up", data={"csrf_token": csrf_from(page.text)}
    )
    assert response.status_code == 303
    page = await client.get("/lessons/gpu-support")
    assert SOLUTION_MARK in page.text
    assert "product.device.type" in page.text  # a line of the sample solution


async def test_revealed_lists_passed_and_given_up_exercises_only(db: Database) -> None:
    async with db.writer() as session:
        user = await create_user(session=session, username="revealer", password="correct horse")
        exercise = await live_exercise(session=session, exercise_id=EXERCISE)
        assert exercise is not None
        other = "tensors-on-the-gpu-footprint"
        ids = [EXERCISE, other, "tensor-basics-grid"]
        assert await service.revealed(session=session, user_id=user.id, exercise_ids=ids) == {}
        passed = await service.create_submission(
            session=session, user_id=user.id, exercise=exercise, code="x"
        )
        passed.verdict = Verdict.PASSED
        await service.give_up(session=session, user_id=user.id, exercise_id=other)
        await session.flush()
        assert await service.revealed(session=session, user_id=user.id, exercise_ids=ids) == {
            EXERCISE: "passed",
            other: "gave_up",
        }
