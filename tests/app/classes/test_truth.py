"""What teachers are shown is true: give-ups, and the answers a student asked to be shown,
appear wherever they look (grid, drill-down, insight, CSV, API); a run this platform could
not grade (no such device here) is never an error; a try-out run is never "Passed" when its
output differed."""

from __future__ import annotations

import csv
import io
from datetime import timedelta
from typing import Any

import httpx

from app.db import Database
from app.models import Submission, utcnow
from tests.app.classes.conftest import (
    LESSON,
    World,
    add_submission,
    lesson_items,
    recorded,
    wrong_answer,
)


def run(device: str, verdict: str, stdout: str = "", **extra: Any) -> dict[str, Any]:
    return {
        "device": device,
        "verdict": verdict,
        "stdout": stdout,
        "stderr": "",
        "exit_code": None if verdict == "not_graded" else 0,
        "duration_ms": 0 if verdict == "not_graded" else 12,
        "diff": "",
        "detail": "not graded on cuda here" if verdict == "not_graded" else None,
        **extra,
    }


async def add_runs(
    db: Database,
    *,
    user_id: int,
    exercise_id: str,
    verdict: str,
    runs: list[dict[str, Any]],
    mode: str = "grade",
) -> int:
    async with db.sessionmaker() as session:
        row = Submission(
            user_id=user_id,
            exercise_id=exercise_id,
            code="print('hi')\n",
            mode=mode,
            status="done",
            verdict=verdict,
            runs=runs,
            devices=[r["device"] for r in runs],
            created_at=utcnow(),
            finished_at=utcnow() + timedelta(seconds=1),
        )
        session.add(row)
        await session.flush()
        await recorded(session, user_id)
        await session.commit()
        return row.id


async def test_a_give_up_shows_wherever_the_teacher_looks(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    _, exercises = await lesson_items(db)
    exercise = exercises[0]
    gave_up = await client.post(
        f"/api/exercises/{exercise.id}/give-up", headers=world.member.headers
    )
    assert gave_up.status_code == 200
    h = world.teacher.headers
    cid, sid = world.class_id, world.member.id

    progress = (await client.get(f"/api/classes/{cid}/progress", headers=h)).json()
    cell = next(c for c in progress["cells"] if c["lesson_slug"] == LESSON)
    assert cell["exercises_given_up"] == 1

    table = (await client.get(f"/api/classes/{cid}/progress.csv", headers=h)).text
    row = next(r for r in csv.DictReader(io.StringIO(table)) if r["lesson_slug"] == LESSON)
    assert row["exercises_given_up"] == "1"

    grid = (await client.get(f"/classes/{cid}/progress", headers=h)).text
    assert "⚑1" in grid and "gave up on 1 exercise<" in grid

    drill = (
        await client.get(f"/api/classes/{cid}/students/{sid}/lessons/{LESSON}", headers=h)
    ).json()
    assert [g["exercise_id"] for g in drill["gave_up"]] == [exercise.id]
    assert drill["cell"]["exercises_given_up"] == 1
    page = (await client.get(f"/classes/{cid}/students/{sid}/lessons/{LESSON}", headers=h)).text
    assert "Gave up and saw the sample solution" in page
    assert exercise.title in page[page.index("Gave up and saw the sample solution") :]

    insight = (
        await client.get(f"/api/classes/{cid}/insight", params={"lesson": LESSON}, headers=h)
    ).json()
    item = next(i for i in insight["items"] if i["id"] == exercise.id)
    assert item["students_gave_up"] == 1
    shown = (await client.get(f"/classes/{cid}/insight?lesson={LESSON}", headers=h)).text
    assert "1 student gave up and saw the sample solution." in shown


async def test_an_answer_asked_for_shows_wherever_the_teacher_looks(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    questions, _ = await lesson_items(db)
    question = questions[1]
    student = world.member.headers
    wrong = await client.post(
        f"/api/questions/{question.id}/answers",
        json={"answer": wrong_answer(question)},
        headers=student,
    )
    assert wrong.status_code == 200 and wrong.json()["correct_answer"] is None
    shown = await client.post(f"/api/questions/{question.id}/reveal", headers=student)
    assert shown.status_code == 200 and shown.json()["correct_answer"] is not None
    h = world.teacher.headers
    cid, sid = world.class_id, world.member.id

    progress = (await client.get(f"/api/classes/{cid}/progress", headers=h)).json()
    cell = next(c for c in progress["cells"] if c["lesson_slug"] == LESSON)
    assert cell["answers_requested"] == 1
    assert cell["exercises_given_up"] == 0  # a question's answer is not an exercise given up

    table = (await client.get(f"/api/classes/{cid}/progress.csv", headers=h)).text
    header = table.splitlines()[0].split(",")
    assert header.index("answers_requested") > header.index("score_percent")  # joined at the end
    row = next(r for r in csv.DictReader(io.StringIO(table)) if r["lesson_slug"] == LESSON)
    assert row["answers_requested"] == "1"

    grid = (await client.get(f"/classes/{cid}/progress", headers=h)).text
    assert "⚐1" in grid and "asked for the answer of 1 question<" in grid

    drill = (
        await client.get(f"/api/classes/{cid}/students/{sid}/lessons/{LESSON}", headers=h)
    ).json()
    assert [r["question_id"] for r in drill["answers_requested"]] == [question.id]
    assert drill["cell"]["answers_requested"] == 1
    assert drill["gave_up"] == []
    page = (await client.get(f"/classes/{cid}/students/{sid}/lessons/{LESSON}", headers=h)).text
    event = page[page.index('<li class="event answer-requested">') :]
    assert "Asked to be shown the answer" in event[: event.index("</li>")]
    assert "Question 2" in event[: event.index("</li>")]
    assert "⚐</span> asked for the answer" in page  # the item-by-item row of question 2

    insight = (
        await client.get(f"/api/classes/{cid}/insight", params={"lesson": LESSON}, headers=h)
    ).json()
    item = next(i for i in insight["items"] if i["id"] == question.id)
    assert item["students_requested_answer"] == 1
    others = [i for i in insight["items"] if i["id"] != question.id]
    assert all(i["students_requested_answer"] == 0 for i in others)
    seen = (await client.get(f"/classes/{cid}/insight?lesson={LESSON}", headers=h)).text
    assert "1 student asked to be shown the answer." in seen

    # Asking again once it is shown records nothing more.
    assert (await client.post(f"/api/questions/{question.id}/reveal", headers=student)).is_success
    again = (await client.get(f"/api/classes/{cid}/progress", headers=h)).json()
    assert next(c for c in again["cells"] if c["lesson_slug"] == LESSON)["answers_requested"] == 1


async def test_a_run_not_graded_here_is_never_an_error(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    _, exercises = await lesson_items(db)
    exercise = exercises[0]
    sid = world.member.id
    await add_runs(
        db,
        user_id=sid,
        exercise_id=exercise.id,
        verdict="wrong_output",
        runs=[run("cpu", "wrong_output", "tensor([1, 2])\n"), run("cuda", "not_graded")],
    )
    await add_runs(
        db,
        user_id=sid,
        exercise_id=exercise.id,
        verdict="passed",
        runs=[run("cpu", "passed"), run("cuda", "not_graded")],
    )
    h = world.teacher.headers
    insight = (
        await client.get(
            f"/api/classes/{world.class_id}/insight", params={"lesson": LESSON}, headers=h
        )
    ).json()
    item = next(i for i in insight["items"] if i["id"] == exercise.id)
    assert item["errors"] == []
    # The one wrong output is the CPU run's; the cuda run that was not graded adds nothing.
    assert [(g["label"], g["students"]) for g in item["wrong"]] == [("tensor([1, 2])", 1)]
    assert {v["label"] for v in item["verdicts"]} == {"passed", "wrong output"}
    page = (await client.get(f"/classes/{world.class_id}/insight?lesson={LESSON}", headers=h)).text
    assert "Error without a message" not in page
    drill = (
        await client.get(f"/classes/{world.class_id}/students/{sid}/lessons/{LESSON}", headers=h)
    ).text
    assert "Not graded: no such device here" in drill
    assert "Error without a message" not in drill


async def test_the_drill_down_never_calls_a_wrong_try_out_passed(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    _, exercises = await lesson_items(db)
    exercise = exercises[0]
    sid = world.member.id
    await add_runs(
        db,
        user_id=sid,
        exercise_id=exercise.id,
        verdict="passed",
        mode="run",
        runs=[run("cpu", "passed", "not what is expected\n", output_matches=False)],
    )
    await add_submission(db, user_id=sid, exercise_id=exercise.id, verdict="passed", mode="run")
    page = (
        await client.get(
            f"/classes/{world.class_id}/students/{sid}/lessons/{LESSON}",
            headers=world.teacher.headers,
        )
    ).text
    assert "✗</span> Output differs from the expected output" in page
    assert "•</span> Ran; output not checked" in page  # recorded before outputs were checked
    assert "✓</span> Passed" not in page and "cpu</span> Passed" not in page
    assert page.count('<table class="side-by-side">') == 1  # the differing try-out's output
