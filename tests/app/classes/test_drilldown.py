"""Drill-down: one student's answers and submissions on one lesson, in time order."""

from __future__ import annotations

from datetime import timedelta

import httpx

from app.db import Database
from app.models import utcnow
from tests.app.classes.conftest import (
    LESSON,
    OTHER_LESSON,
    World,
    add_submission,
    lesson_items,
    right_answer,
    wrong_answer,
)

STDERR = (
    "Traceback (most recent call last):\n"
    '  File "main.py", line 3, in <module>\n'
    "RuntimeError: Expected all tensors to be on the same device\n"
)


async def seed(client: httpx.AsyncClient, db: Database, world: World) -> dict:
    questions, exercises = await lesson_items(db)
    h = world.member.headers
    q = next(q for q in questions if q.kind == "multiple_choice")
    for answer in (wrong_answer(q), right_answer(q)):
        response = await client.post(
            f"/api/questions/{q.id}/answers", json={"answer": answer}, headers=h
        )
        assert response.status_code == 200
    soon = utcnow() + timedelta(minutes=1)
    failed = await add_submission(
        db,
        user_id=world.member.id,
        exercise_id=exercises[0].id,
        verdict="runtime_error",
        stderr=STDERR,
        code="x = torch.ones(2).cuda() + torch.ones(2)\n",
        devices=("cpu", "cuda"),
        at=soon,
    )
    passed = await add_submission(
        db,
        user_id=world.member.id,
        exercise_id=exercises[0].id,
        verdict="passed",
        code="print('fixed')\n",
        at=soon + timedelta(minutes=1),
    )
    _, other_exercises = await lesson_items(db, OTHER_LESSON)
    elsewhere = await add_submission(
        db, user_id=world.member.id, exercise_id=other_exercises[0].id, verdict="passed"
    )
    return {"question": q, "failed": failed, "passed": passed, "elsewhere": elsewhere}


async def test_drill_down_lists_answers_and_submissions_oldest_first(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    s = await seed(client, db, world)
    response = await client.get(
        f"/api/classes/{world.class_id}/students/{world.member.id}/lessons/{LESSON}",
        headers=world.teacher.headers,
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["student"] == {
        "id": world.member.id,
        "username": world.member.username,
        "display_name": world.member.username,
        "student_number": None,
    }
    assert body["lesson"]["slug"] == LESSON
    events = body["events"]
    assert [e["kind"] for e in events] == ["answer", "answer", "submission", "submission"]
    assert [e["at"] for e in events] == sorted(e["at"] for e in events)
    wrong, right = events[0], events[1]
    assert (wrong["correct"], right["correct"]) == (False, True)
    q = s["question"]
    options = q.public["options"]
    assert any(options[right_answer(q)] in line for line in right["answer_text"])
    failed = events[2]["submission"]
    assert failed["id"] == s["failed"]
    assert failed["code"].startswith("x = torch.ones(2).cuda()")
    assert [run["device"] for run in failed["runs"]] == ["cpu", "cuda"]
    assert failed["runs"][0]["diff"]
    assert events[3]["submission"]["verdict"] == "passed"
    assert body["cell"]["attempts"] == 4
    assert s["elsewhere"] not in [
        e["submission"]["id"] for e in events if e["kind"] == "submission"
    ]


async def test_drill_down_page_renders_everything_readably(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    s = await seed(client, db, world)
    page = await client.get(
        f"/classes/{world.class_id}/students/{world.member.id}/lessons/{LESSON}",
        headers=world.teacher.headers,
    )
    assert page.status_code == 200
    html = page.text
    q = s["question"]
    assert q.public["options"][right_answer(q)] in html
    assert "RuntimeError: Expected all tensors to be on the same device" in html
    assert "x = torch.ones(2).cuda() + torch.ones(2)" in html
    assert "cuda" in html  # per-device runs
    # The failed runs shown as the student sees them: side by side, not as a raw diff.
    assert html.count('<table class="side-by-side">') == 2 and "+++ actual" not in html
    # The timeline, oldest first (after the per-item summary).
    timeline = html.split('class="timeline"')[1]
    assert timeline.index("✗</span> Wrong") < timeline.index("✓</span> Right")
    assert timeline.index("torch.ones(2).cuda()") < timeline.index("print(&#39;fixed&#39;)")


async def test_drill_down_of_an_unknown_lesson_is_404(
    client: httpx.AsyncClient, world: World
) -> None:
    response = await client.get(
        f"/api/classes/{world.class_id}/students/{world.member.id}/lessons/no-such-lesson",
        headers=world.teacher.headers,
    )
    assert response.status_code == 404


async def test_student_submissions_come_with_code_newest_first(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    s = await seed(client, db, world)
    url = f"/api/classes/{world.class_id}/students/{world.member.id}/submissions"
    response = await client.get(url, headers=world.teacher.headers)
    assert response.status_code == 200
    rows = response.json()
    assert [r["id"] for r in rows] == sorted(
        [s["failed"], s["passed"], s["elsewhere"]], reverse=True
    )
    assert all(isinstance(r["code"], str) and r["code"] for r in rows)
    assert {"id", "exercise_id", "status", "verdict", "runs", "created_at", "finished_at"} <= set(
        rows[0]
    )
    only = await client.get(url, params={"lesson": LESSON}, headers=world.teacher.headers)
    assert {r["id"] for r in only.json()} == {s["failed"], s["passed"]}
