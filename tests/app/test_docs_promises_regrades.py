"""docs/api.md on regrades: the request's `reason` is optional, 1 to 200 characters; with no
graded submissions the regrade is `ready` at once; the exercise's list is newest first, at
most 50."""

from __future__ import annotations

import httpx

from app.db import Database
from tests.helpers import make_teacher

EXERCISE = "gpu-support-device-independent"
URL = f"/api/exercises/{EXERCISE}/regrades"


async def test_the_reason_is_optional_and_1_to_200_characters(
    client: httpx.AsyncClient, db: Database
) -> None:
    teacher, _ = await make_teacher(db)
    for reason in ("", "x" * 201):
        refused = await client.post(URL, json={"reason": reason}, headers=teacher)
        assert refused.status_code == 422, (len(reason), refused.text)
    for body in ({"reason": "x" * 200}, {}):
        made = await client.post(URL, json=body, headers=teacher)
        assert made.status_code == 202, made.text
        assert made.json()["status"] == "ready"  # nothing graded to grade again


async def test_the_list_is_newest_first_and_at_most_50(
    client: httpx.AsyncClient, db: Database
) -> None:
    teacher, _ = await make_teacher(db)
    made = []
    for number in range(51):
        answer = await client.post(URL, json={"reason": f"number {number}"}, headers=teacher)
        assert answer.status_code == 202, answer.text
        made.append(answer.json()["id"])
    listed = await client.get(URL, headers=teacher)
    assert listed.status_code == 200, listed.text
    assert [regrade["id"] for regrade in listed.json()] == made[::-1][:50]
