"""Insight a teacher can act on: wrong outputs beside the expected output (the one diff),
the students behind each group with links, one code sample, errors grouped by exception and
normalised message, and the right answer on question cards."""

from __future__ import annotations

from datetime import timedelta

import httpx

from app.db import Database
from app.models import utcnow
from tests.app.classes.conftest import (
    LESSON,
    Person,
    World,
    add_submission,
    join_new_students,
    lesson_items,
)


def size_error(a: int, b: int) -> str:
    return (
        'Traceback (most recent call last):\n  File "main.py", line 3, in <module>\n'
        f"RuntimeError: The size of tensor a ({a}) must match the size of tensor b ({b})\n"
    )


DEVICE_ERROR = "Traceback (most recent call last):\nRuntimeError: Expected all tensors on cpu\n"


async def seed(client: httpx.AsyncClient, db: Database, world: World) -> dict:
    others = await join_new_students(client, db, world, 2)
    a, b, c = world.member, *others
    _, exercises = await lesson_items(db)
    e = exercises[0]
    t = utcnow() - timedelta(hours=1)
    steps: list[tuple[Person, str, str, str, str]] = [
        (a, "wrong_output", "wrong\n", "", "print('wrong')  # a\n"),
        (b, "wrong_output", "wrong\n", "", "print('wrong')  # b\n"),
        (a, "runtime_error", "", size_error(3, 4), "x = 1\n"),
        (b, "runtime_error", "", size_error(5, 2), "x = 2\n"),
        (c, "runtime_error", "", DEVICE_ERROR, "x = 3\n"),
    ]
    for index, (person, verdict, stdout, stderr, code) in enumerate(steps):
        await add_submission(
            db,
            user_id=person.id,
            exercise_id=e.id,
            verdict=verdict,
            stdout=stdout,
            stderr=stderr,
            code=code,
            at=t + timedelta(minutes=index),
        )
    return {"a": a, "b": b, "c": c, "exercise": e}


async def test_groups_carry_students_sample_and_diff(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    s = await seed(client, db, world)
    response = await client.get(
        f"/api/classes/{world.class_id}/insight",
        params={"lesson": LESSON},
        headers=world.teacher.headers,
    )
    assert response.status_code == 200, response.text
    item = next(i for i in response.json()["items"] if i["id"] == s["exercise"].id)
    wrong = item["wrong"][0]
    assert wrong["label"] == "wrong"
    assert wrong["student_ids"] == sorted([s["a"].id, s["b"].id])
    assert wrong["sample_code"] == "print('wrong')  # a\n"  # the first given
    expected_first = s["exercise"].expected_output.splitlines()[0]
    assert wrong["rows"][0]["expected"]["text"] == expected_first.replace("{device}", "cpu")
    assert any(row["actual"]["text"] == "wrong" for row in wrong["rows"])

    errors = {g["label"]: g for g in item["errors"]}
    size = "RuntimeError: The size of tensor a (N) must match the size of tensor b (N)"
    # Same mistake, different numbers: one group; another RuntimeError: its own group.
    assert errors[size]["students"] == 2
    assert errors[size]["student_ids"] == sorted([s["a"].id, s["b"].id])
    assert "tensor a (3)" in errors[size]["sample_message"]
    assert errors["RuntimeError: Expected all tensors on cpu"]["student_ids"] == [s["c"].id]

    questions = [i for i in response.json()["items"] if i["kind"] != "exercise"]
    assert questions and all(q["correct"] for q in questions)


async def test_insight_page_shows_what_to_act_on(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    s = await seed(client, db, world)
    page = await client.get(
        f"/classes/{world.class_id}/insight",
        params={"lesson": LESSON},
        headers=world.teacher.headers,
    )
    assert page.status_code == 200
    text = page.text
    assert 'class="side-by-side"' in text  # the student's own diff macro
    assert f"student={s['a'].id}&amp;student={s['b'].id}" in text
    assert f"/classes/{world.class_id}/students/{s['c'].id}/lessons/{LESSON}" in text
    assert "print(&#39;wrong&#39;)  # a" in text
    assert "Expected all tensors on cpu" in text
    assert "Correct answer" in text
    grid = await client.get(
        f"/classes/{world.class_id}/progress",
        params={"student": [s["a"].id, s["b"].id]},
        headers=world.teacher.headers,
    )
    assert grid.status_code == 200
    assert s["a"].username in grid.text and s["b"].username in grid.text
    assert s["c"].username not in grid.text


async def test_wrong_answer_groups_name_their_students(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    s = await seed(client, db, world)
    questions, _ = await lesson_items(db)
    q = next(q for q in questions if q.kind == "predict_output")
    for person, answer in ((s["a"], "nope"), (s["b"], "nope"), (s["b"], "nope"), (s["c"], "x")):
        sent = await client.post(
            f"/api/questions/{q.id}/answers", json={"answer": answer}, headers=person.headers
        )
        assert sent.status_code == 200 and sent.json()["correct"] is False
    response = await client.get(
        f"/api/classes/{world.class_id}/insight",
        params={"lesson": LESSON},
        headers=world.teacher.headers,
    )
    item = next(i for i in response.json()["items"] if i["id"] == q.id)
    groups = {g["label"]: g["student_ids"] for g in item["wrong"]}
    assert sorted(groups.values()) == [sorted([s["a"].id, s["b"].id]), [s["c"].id]]
    page = await client.get(
        f"/classes/{world.class_id}/insight",
        params={"lesson": LESSON},
        headers=world.teacher.headers,
    )
    assert f"/classes/{world.class_id}/students/{s['c'].id}/lessons/{LESSON}" in page.text
