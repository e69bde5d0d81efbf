"""Insight: shares right, attempts to success, common wrong answers, outputs and errors."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest

from app.classes.answers import error_summary, failure_label
from app.db import Database
from app.models import utcnow
from tests.app.classes.conftest import (
    LESSON,
    Person,
    World,
    add_submission,
    join_new_students,
    lesson_items,
    right_answer,
    wrong_answer,
)

RUNTIME = (
    'Traceback (most recent call last):\n  File "main.py", line 2\nRuntimeError: devices differ\n'
)


async def seed(client: httpx.AsyncClient, db: Database, world: World) -> dict:
    """Four students: s1 right at once; s2 right at the third try; s3 only wrong; s4 idle."""
    others = await join_new_students(client, db, world, 3)
    s1, s2, s3, s4 = world.member, *others
    questions, exercises = await lesson_items(db)
    q = next(q for q in questions if q.kind == "multiple_choice")
    e = exercises[0]

    async def answer(person: Person, value: object) -> None:
        response = await client.post(
            f"/api/questions/{q.id}/answers", json={"answer": value}, headers=person.headers
        )
        assert response.status_code == 200

    await answer(s1, right_answer(q))
    await answer(s2, wrong_answer(q))
    await answer(s2, wrong_answer(q))
    await answer(s2, right_answer(q))
    await answer(s3, wrong_answer(q))

    t = utcnow() - timedelta(hours=1)
    steps = [
        (s1, "passed", "", ""),
        (s2, "runtime_error", "", RUNTIME),
        (s2, "wrong_output", "tensor([1, 2])\n", ""),
        (s2, "passed", "", ""),
        (s3, "runtime_error", "", RUNTIME),
        (s3, "timeout", "", ""),
    ]
    for index, (person, verdict, stdout, stderr) in enumerate(steps):
        await add_submission(
            db,
            user_id=person.id,
            exercise_id=e.id,
            verdict=verdict,
            stdout=stdout,
            stderr=stderr,
            at=t + timedelta(minutes=index),
        )
    # Not graded: never counted.
    await add_submission(db, user_id=s4.id, exercise_id=e.id, verdict="", status="error")
    return {"question": q, "exercise": e}


async def test_insight_numbers(client: httpx.AsyncClient, db: Database, world: World) -> None:
    s = await seed(client, db, world)
    response = await client.get(
        f"/api/classes/{world.class_id}/insight",
        params={"lesson": LESSON},
        headers=world.teacher.headers,
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["students"] == 4
    assert body["lesson"] == LESSON
    items = {item["id"]: item for item in body["items"]}

    q = items[s["question"].id]
    assert (q["students_tried"], q["students_right"]) == (3, 2)
    assert q["share_right"] == 0.5
    assert q["share_right_of_tried"] == 0.6667
    assert q["attempts_to_success_mean"] == 2.0  # 1 and 3
    assert q["attempts_to_success_median"] == 2.0
    wrong_text = s["question"].public["options"][wrong_answer(s["question"])]
    assert q["wrong"][0]["students"] == 2
    assert wrong_text in q["wrong"][0]["label"]

    e = items[s["exercise"].id]
    assert e["kind"] == "exercise"
    assert (e["students_tried"], e["students_right"]) == (3, 2)
    assert e["attempts_to_success_mean"] == 2.0  # 1 and 3
    assert e["errors"][0]["label"] == "RuntimeError: devices differ"
    assert e["errors"][0]["students"] == 2
    assert ("Time limit exceeded", 1) in [(g["label"], g["students"]) for g in e["errors"]]
    assert [(g["label"], g["students"]) for g in e["wrong"]] == [("tensor([1, 2])", 1)]
    verdicts = {v["label"]: v["students"] for v in e["verdicts"]}
    assert verdicts == {"passed": 2, "runtime error": 2, "wrong output": 1, "timeout": 1}

    lesson = next(item for item in body["lessons"] if item["slug"] == LESSON)
    assert lesson["students"] == 4
    assert lesson["done"] + lesson["in_progress"] + lesson["not_started"] + lesson["late"] == 4
    assert lesson["not_started"] == 1
    hardest = [item["id"] for item in body["hardest"]]
    assert s["question"].id in hardest and s["exercise"].id in hardest


async def test_insight_page_shows_charts_with_text(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    s = await seed(client, db, world)
    page = await client.get(f"/classes/{world.class_id}/insight", headers=world.teacher.headers)
    assert page.status_code == 200
    html = page.text
    assert "RuntimeError" in html
    assert "tensor([1, 2])" in html
    assert s["question"].public["options"][wrong_answer(s["question"])] in html
    assert '<svg class="histogram"' in html and "<title>" in html
    # One denominator for "right": the students who tried (3, of 4 in the class), on the
    # question's card as in the table of the hardest items (issue 16.10).
    assert 'role="img" aria-label="2 of 3 right"' in html
    assert "2 of the 3 students who tried (4 in the class)" in html
    assert html.count("67%") >= 2
    assert "2 of 4 students right" not in html


async def test_insight_of_an_empty_class(client: httpx.AsyncClient, world: World) -> None:
    await client.delete(
        f"/api/classes/{world.class_id}/students/{world.member.id}", headers=world.teacher.headers
    )
    response = await client.get(
        f"/api/classes/{world.class_id}/insight", headers=world.teacher.headers
    )
    assert response.status_code == 200
    assert response.json()["students"] == 0
    page = await client.get(f"/classes/{world.class_id}/insight", headers=world.teacher.headers)
    assert page.status_code == 200


@pytest.mark.parametrize(
    ("stderr", "expected"),
    [
        (RUNTIME, "RuntimeError"),
        ("torch.OutOfMemoryError: CUDA out of memory.\n\n", "torch.OutOfMemoryError"),
        ("Traceback...\nKeyboardInterrupt\n", "KeyboardInterrupt"),
        ('  File "main.py"\n    x = = 1\nSyntaxError: invalid syntax', "SyntaxError"),
        ("some warning text\nthen a free sentence", None),
        ("", None),
    ],
)
def test_an_error_is_named_by_the_last_line_of_stderr(stderr: str, expected: str | None) -> None:
    summary = error_summary(stderr)
    if expected is None:
        assert summary is None
    else:
        assert summary is not None and summary.split(":")[0] == expected


def test_failure_labels() -> None:
    assert failure_label({"verdict": "passed"}) is None
    assert failure_label({"verdict": "wrong_output", "stdout": "3\n"}) == ("output", "3")
    assert failure_label({"verdict": "memory_limit"}) == ("error", "Memory limit exceeded")
    assert failure_label({"verdict": "runtime_error", "stderr": ""}) == (
        "error",
        "Error without a message",
    )


async def test_insight_counts_each_lesson_as_the_grid_shows_its_states(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    """Insight builds the grid for states only (no scores, no give-ups): its four bars per
    lesson are still the grid's six states, coarsened. A due date passed, an extension past
    it for one student, and students done, begun and idle."""
    await seed(client, db, world)
    h, cid = world.teacher.headers, world.class_id
    assert (
        await client.put(
            f"/api/classes/{cid}/assignments/{LESSON}",
            json={"due_at": (utcnow() - timedelta(days=1)).isoformat()},
            headers=h,
        )
    ).status_code == 200
    extended = await client.put(
        f"/api/classes/{cid}/assignments/{LESSON}/extensions/{world.member.id}",
        json={"due_at": (utcnow() + timedelta(days=3)).isoformat()},
        headers=h,
    )
    assert extended.status_code == 200, extended.text
    cells = (await client.get(f"/api/classes/{cid}/progress", headers=h)).json()["cells"]
    coarse = {"done": "done", "done_late": "done", "in_progress": "in_progress",
              "overdue_in_progress": "late", "not_started": "not_started",
              "overdue_not_started": "late"}  # fmt: skip
    expected = {"done": 0, "in_progress": 0, "late": 0, "not_started": 0}
    for cell in cells:
        if cell["lesson_slug"] == LESSON:
            expected[coarse[cell["state"]]] += 1
    assert expected["late"] and sum(expected.values()) == 4
    lessons = (await client.get(f"/api/classes/{cid}/insight", headers=h)).json()["lessons"]
    shown = next(lesson for lesson in lessons if lesson["slug"] == LESSON)
    assert {key: shown[key] for key in expected} == expected
