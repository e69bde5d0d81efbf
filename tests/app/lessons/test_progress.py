"""`GET /api/me/progress`: questions answered right and exercises passed, per lesson."""

from __future__ import annotations

from typing import Any

import httpx
import yaml
from sqlalchemy import select

from app.config import REPO_ROOT
from app.db import Database
from app.models import Exercise, Question, Submission
from app.quizzes.kinds import kind_of
from tests.helpers import make_student

LESSON = "gpu-support"
MC, FILL, MATCH = "gpu-support-same-device", "gpu-support-move-to", "gpu-support-match-terms"
EXERCISE = "gpu-support-device-independent"
LESSONS = ["tensor-basics", "tensors-on-the-gpu", "gpu-support"]


async def _progress(client: httpx.AsyncClient, headers: dict[str, str]) -> dict[str, Any]:
    response = await client.get("/api/me/progress", headers=headers)
    assert response.status_code == 200
    return {row["slug"]: row for row in response.json()["lessons"]}


async def _answer(
    client: httpx.AsyncClient, headers: dict[str, str], question_id: str, answer: Any
) -> bool:
    response = await client.post(
        f"/api/questions/{question_id}/answers", json={"answer": answer}, headers=headers
    )
    assert response.status_code == 200, response.text
    return bool(response.json()["correct"])


async def _matching_key(db: Database) -> dict[str, str]:
    async with db.sessionmaker() as session:
        return (await session.get_one(Question, MATCH)).key["pairs"]


async def _right_answers(db: Database, *leaving_out: str) -> dict[str, Any]:
    """Every question of the lesson but `leaving_out`, with its right answer as its kind
    gives it."""
    async with db.sessionmaker() as session:
        questions = await session.scalars(
            select(Question).where(Question.lesson_slug == LESSON, ~Question.retired)
        )
        found = {}
        for question in questions:
            kind = kind_of(question.kind)
            right = kind.correct_answer(kind.public_of(question.public), kind.key_of(question.key))
            found[question.id] = right.model_dump(mode="json")
    return {qid: answer for qid, answer in found.items() if qid not in leaving_out}


async def _submit(db: Database, user_id: int, exercise_id: str, **values: Any) -> None:
    """A graded submission, as the grader would leave it."""
    fields = {"mode": "grade", "status": "done", "verdict": "passed"} | values
    async with db.sessionmaker() as session, session.begin():
        session.add(Submission(user_id=user_id, exercise_id=exercise_id, code="print()", **fields))


async def test_progress_shape_for_a_new_student(client: httpx.AsyncClient, db: Database) -> None:
    headers, _ = await make_student(db)
    response = await client.get("/api/me/progress", headers=headers)
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"lessons"}
    tracks = yaml.safe_load((REPO_ROOT / "exercises" / "tracks.yaml").read_text())["tracks"]
    assert [row["slug"] for row in body["lessons"]] == [s for t in tracks for s in t["lessons"]]
    async with db.sessionmaker() as session:
        questions = (await session.scalars(select(Question).where(~Question.retired))).all()
        exercises = (await session.scalars(select(Exercise).where(~Exercise.retired))).all()
    for row in body["lessons"]:
        assert set(row) == {
            "slug",
            "questions_total",
            "questions_correct",
            "exercises_total",
            "exercises_passed",
            "completed",
        }
        assert row["questions_total"] == sum(q.lesson_slug == row["slug"] for q in questions)
        assert row["exercises_total"] == sum(e.lesson_slug == row["slug"] for e in exercises)
        assert row["questions_correct"] == row["exercises_passed"] == 0
        assert row["completed"] is False
    gpu = next(row for row in body["lessons"] if row["slug"] == LESSON)
    written = (REPO_ROOT / "exercises" / "lessons" / LESSON / "questions.yaml").read_text()
    assert (gpu["questions_total"], gpu["exercises_total"]) == (written.count("kind: "), 1)


async def test_progress_needs_a_user(client: httpx.AsyncClient) -> None:
    assert (await client.get("/api/me/progress")).status_code == 401
    bogus = await client.get("/api/me/progress", headers={"Authorization": "Bearer nope"})
    assert bogus.status_code == 401


async def test_a_right_answer_counts_once(client: httpx.AsyncClient, db: Database) -> None:
    headers, _ = await make_student(db)
    assert await _answer(client, headers, MC, 3)
    assert (await _progress(client, headers))[LESSON]["questions_correct"] == 1
    assert await _answer(client, headers, MC, 3)
    assert (await _progress(client, headers))[LESSON]["questions_correct"] == 1
    # A wrong answer afterwards does not take it away.
    assert not await _answer(client, headers, MC, 0)
    assert (await _progress(client, headers))[LESSON]["questions_correct"] == 1


async def test_wrong_answers_do_not_count(client: httpx.AsyncClient, db: Database) -> None:
    headers, _ = await make_student(db)
    assert not await _answer(client, headers, MC, 1)
    assert not await _answer(client, headers, FILL, ["cuda"])
    row = (await _progress(client, headers))[LESSON]
    assert row["questions_correct"] == 0
    assert row["completed"] is False


async def test_progress_is_per_student_and_per_lesson(
    client: httpx.AsyncClient, db: Database
) -> None:
    first, _ = await make_student(db)
    second, _ = await make_student(db)
    assert await _answer(client, first, MC, 3)
    assert await _answer(client, first, "tensor-basics-default-dtype", 1)
    mine = await _progress(client, first)
    assert mine[LESSON]["questions_correct"] == 1
    assert mine["tensor-basics"]["questions_correct"] == 1
    assert mine["tensors-on-the-gpu"]["questions_correct"] == 0
    theirs = await _progress(client, second)
    assert all(row["questions_correct"] == 0 for row in theirs.values())


async def test_completed_needs_every_question_and_every_exercise(
    client: httpx.AsyncClient, db: Database
) -> None:
    headers, user_id = await make_student(db)
    assert await _answer(client, headers, MC, 3)
    assert await _answer(client, headers, FILL, ["to"])
    row = (await _progress(client, headers))[LESSON]
    assert (row["questions_correct"], row["completed"]) == (2, False)

    assert await _answer(client, headers, MATCH, await _matching_key(db))
    row = (await _progress(client, headers))[LESSON]
    assert row["questions_correct"] == 3
    assert row["completed"] is False  # the other questions are still to answer
    for question_id, answer in (await _right_answers(db, MC, FILL, MATCH)).items():
        assert await _answer(client, headers, question_id, answer)
    total = len(await _right_answers(db))
    row = (await _progress(client, headers))[LESSON]
    assert (row["questions_correct"], row["questions_total"]) == (total, total)
    assert row["exercises_passed"] == 0
    assert row["completed"] is False  # the exercise is still to do

    # Submissions that do not count: a failed one, a try-out run, one still queued.
    await _submit(db, user_id, EXERCISE, verdict="wrong_output")
    await _submit(db, user_id, EXERCISE, mode="run")
    await _submit(db, user_id, EXERCISE, status="queued", verdict=None)
    row = (await _progress(client, headers))[LESSON]
    assert (row["exercises_passed"], row["completed"]) == (0, False)

    await _submit(db, user_id, EXERCISE)
    row = (await _progress(client, headers))[LESSON]
    assert row == {
        "slug": LESSON,
        "questions_total": total,
        "questions_correct": total,
        "exercises_total": 1,
        "exercises_passed": 1,
        "completed": True,
    }
    # Passing twice still counts one exercise; other lessons are untouched.
    await _submit(db, user_id, EXERCISE)
    progress = await _progress(client, headers)
    assert progress[LESSON]["exercises_passed"] == 1
    assert progress["tensor-basics"]["completed"] is False


async def test_exercises_alone_do_not_complete_a_lesson(
    client: httpx.AsyncClient, db: Database
) -> None:
    headers, user_id = await make_student(db)
    await _submit(db, user_id, EXERCISE)
    row = (await _progress(client, headers))[LESSON]
    assert (row["exercises_passed"], row["questions_correct"], row["completed"]) == (1, 0, False)


async def test_another_students_submission_does_not_count(
    client: httpx.AsyncClient, db: Database
) -> None:
    headers, _ = await make_student(db)
    _, other_id = await make_student(db)
    await _submit(db, other_id, EXERCISE)
    assert (await _progress(client, headers))[LESSON]["exercises_passed"] == 0


async def test_catalog_page_shows_a_completed_lesson(
    client: httpx.AsyncClient, db: Database
) -> None:
    headers, user_id = await make_student(db)
    for question_id, answer in (await _right_answers(db)).items():
        assert await _answer(client, headers, question_id, answer)
    await _submit(db, user_id, EXERCISE)
    page = await client.get("/", headers=headers)
    assert page.status_code == 200
    assert "Completed ✓" in page.text
    assert page.text.count('class="lesson-card done"') == 1
