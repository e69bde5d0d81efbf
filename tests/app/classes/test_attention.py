"""Needs attention: students stuck on an item (failed often, never right) or idle while a
lesson is due soon or overdue; thresholds as query parameters; teachers of the class only."""

from __future__ import annotations

from datetime import timedelta

import httpx

from app.db import Database
from app.models import utcnow
from tests.app.classes.conftest import (
    LESSON,
    World,
    add_submission,
    join_new_students,
    lesson_items,
    right_answer,
    set_due,
    wrong_answer,
)


async def seed(client: httpx.AsyncClient, db: Database, world: World) -> dict:
    """stuck: 3 failed graded submissions on an exercise and 3 wrong answers on a question;
    recovered: 3 failed then passed; idle: never active; the lesson is overdue."""
    stuck, recovered, idle = world.member, *await join_new_students(client, db, world, 2)
    questions, exercises = await lesson_items(db)
    q = next(q for q in questions if q.kind == "multiple_choice")
    e = exercises[0]
    for _ in range(3):
        response = await client.post(
            f"/api/questions/{q.id}/answers",
            json={"answer": wrong_answer(q)},
            headers=stuck.headers,
        )
        assert response.status_code == 200
    response = await client.post(
        f"/api/questions/{q.id}/answers",
        json={"answer": right_answer(q)},
        headers=recovered.headers,
    )
    t = utcnow() - timedelta(hours=2)
    for index in range(3):
        for person in (stuck, recovered):
            await add_submission(
                db,
                user_id=person.id,
                exercise_id=e.id,
                verdict="wrong_output",
                stdout="tensor([0])\n",
                at=t + timedelta(minutes=index),
            )
    await add_submission(db, user_id=recovered.id, exercise_id=e.id, verdict="passed")
    # Never graded (a platform error): no failed attempt.
    await add_submission(db, user_id=recovered.id, exercise_id=e.id, verdict="", status="error")
    await set_due(db, world.class_id, LESSON, utcnow() - timedelta(days=1))
    return {"stuck": stuck, "recovered": recovered, "idle": idle, "question": q, "exercise": e}


async def test_stuck_and_idle_students(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    s = await seed(client, db, world)
    response = await client.get(
        f"/api/classes/{world.class_id}/attention", headers=world.teacher.headers
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["failed_attempts"], body["idle_days"], body["due_within_days"]) == (3, 7, 3)
    by_id = {row["student"]["id"]: row for row in body["students"]}
    assert s["recovered"].id not in by_id  # active today, and got everything right in the end
    stuck = by_id[s["stuck"].id]
    items = {row["item_id"]: row for row in stuck["stuck"]}
    assert items[s["exercise"].id]["kind"] == "exercise"
    assert items[s["exercise"].id]["failed_attempts"] == 3
    assert items[s["exercise"].id]["title"] == s["exercise"].title
    assert items[s["question"].id]["failed_attempts"] == 3
    assert stuck["idle"] is None  # active today
    idle = by_id[s["idle"].id]
    assert idle["stuck"] == []
    assert idle["idle"]["days"] is None and idle["idle"]["overdue"] is True
    assert idle["idle"]["lesson_slug"] == LESSON
    # The overdue idle student first.
    assert body["students"][0]["student"]["id"] == s["idle"].id


async def test_thresholds_are_query_parameters(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    s = await seed(client, db, world)
    url = f"/api/classes/{world.class_id}/attention"
    higher = await client.get(url, params={"failed_attempts": 4}, headers=world.teacher.headers)
    ids = [row["student"]["id"] for row in higher.json()["students"]]
    assert s["stuck"].id not in ids and s["idle"].id in ids
    await set_due(db, world.class_id, LESSON, utcnow() + timedelta(days=5))
    later = await client.get(url, headers=world.teacher.headers)
    assert s["idle"].id not in [row["student"]["id"] for row in later.json()["students"]]
    wider = await client.get(url, params={"due_within_days": 6}, headers=world.teacher.headers)
    row = next(r for r in wider.json()["students"] if r["student"]["id"] == s["idle"].id)
    assert row["idle"]["overdue"] is False
    bad = await client.get(url, params={"failed_attempts": 0}, headers=world.teacher.headers)
    assert bad.status_code == 422
    assert "failed_attempts" in bad.text


async def test_only_the_classes_teacher(client: httpx.AsyncClient, world: World) -> None:
    url = f"/api/classes/{world.class_id}/attention"
    assert (await client.get(url)).status_code == 401
    assert (await client.get(url, headers=world.member.headers)).status_code == 403
    assert (await client.get(url, headers=world.other_teacher.headers)).status_code == 404


async def test_attention_page_links_to_the_work(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    s = await seed(client, db, world)
    page = await client.get(f"/classes/{world.class_id}/attention", headers=world.teacher.headers)
    assert page.status_code == 200
    html = page.text
    assert s["exercise"].title in html
    assert f"/classes/{world.class_id}/students/{s['stuck'].id}/lessons/{LESSON}" in html
    assert "Never active" in html
    assert s["recovered"].username not in html
    grid = await client.get(f"/classes/{world.class_id}/progress", headers=world.teacher.headers)
    assert f'href="/classes/{world.class_id}/attention"' in grid.text


async def test_a_lesson_column_opens_item_by_item(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    s = await seed(client, db, world)
    url = f"/classes/{world.class_id}/progress"
    closed = await client.get(url, headers=world.teacher.headers)
    assert 'class="item-col"' not in closed.text
    assert f"expand={LESSON}" in closed.text  # the link that opens it (no JavaScript)
    opened = await client.get(url, params={"expand": LESSON}, headers=world.teacher.headers)
    assert opened.status_code == 200
    text = opened.text
    assert f'<abbr title="{s["exercise"].title}">e1</abbr>' in text
    assert text.count('class="item-col"') >= 2
    assert 'class="item-cell item-wrong"' in text  # stuck: 3 failed, never right
    assert 'class="item-cell item-right"' in text  # recovered
    assert 'class="item-cell item-none"' in text  # idle: not tried
    unknown = await client.get(url, params={"expand": "nope"}, headers=world.teacher.headers)
    assert unknown.status_code == 200 and 'class="item-col"' not in unknown.text
