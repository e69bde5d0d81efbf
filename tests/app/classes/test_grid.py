"""The progress grid: cell values from a small seeded history, states, the page's filters
and sorting, CSV, and a number of queries that does not grow with the class."""

from __future__ import annotations

import csv
import io
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import event

from app.classes import report_pages
from app.db import Database
from app.models import ClassMember, Question, QuestionAttempt, Submission, utcnow
from tests.app.classes.conftest import (
    LESSON,
    OTHER_LESSON,
    Person,
    World,
    add_person,
    add_students,
    add_submission,
    lesson_items,
    recorded,
    right_answer,
    set_due,
    wrong_answer,
)


def parse_time(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


async def seed(client: httpx.AsyncClient, db: Database, world: World) -> dict:
    """A: everything right in LESSON; B: a bit of LESSON; C: nothing. OTHER_LESSON is past
    due, LESSON is due in a week."""
    await set_due(db, world.class_id, LESSON, utcnow() + timedelta(days=7))
    await set_due(db, world.class_id, OTHER_LESSON, utcnow() - timedelta(days=1))
    async with db.sessionmaker() as session:
        b = await add_person(session, username="bbb" + world.member.username[1:8])
        c = await add_person(session, username="ccc" + world.member.username[1:8])
        await session.commit()
    for person in (b, c):
        response = await client.post(
            "/api/classes/join", json={"join_code": world.join_code}, headers=person.headers
        )
        assert response.status_code == 200
    a = world.member
    questions, exercises = await lesson_items(db)
    assert questions and exercises, "the built-in lesson needs questions and exercises"

    async def answer(person: Person, question: Question, value: object) -> bool:
        response = await client.post(
            f"/api/questions/{question.id}/answers", json={"answer": value}, headers=person.headers
        )
        assert response.status_code == 200, response.text
        return response.json()["correct"]

    started = utcnow()
    assert await answer(a, questions[0], wrong_answer(questions[0])) is False
    for q in questions:
        assert await answer(a, q, right_answer(q)) is True
    long_ago = utcnow() - timedelta(days=2)
    for e in exercises:
        await add_submission(db, user_id=a.id, exercise_id=e.id, verdict="passed", at=long_ago)

    assert await answer(b, questions[0], wrong_answer(questions[0])) is False
    assert await answer(b, questions[0], right_answer(questions[0])) is True
    failed_at = utcnow() + timedelta(minutes=5)  # the newest thing B did
    await add_submission(
        db, user_id=b.id, exercise_id=exercises[0].id, verdict="runtime_error", at=failed_at
    )
    # Not attempts: still queued, a platform error, a try-out run.
    later = failed_at + timedelta(minutes=5)
    await add_submission(
        db, user_id=b.id, exercise_id=exercises[0].id, verdict="", status="queued", at=later
    )
    await add_submission(
        db, user_id=b.id, exercise_id=exercises[0].id, verdict="", status="error", at=later
    )
    await add_submission(
        db, user_id=b.id, exercise_id=exercises[0].id, verdict="passed", mode="run", at=later
    )
    # Someone in the other class: never in this grid.
    await add_submission(
        db, user_id=world.outsider.id, exercise_id=exercises[0].id, verdict="passed"
    )
    return {
        "a": a,
        "b": b,
        "c": c,
        "questions": questions,
        "exercises": exercises,
        "started": started,
        "failed_at": failed_at,
    }


async def test_grid_cells_from_a_seeded_history(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    s = await seed(client, db, world)
    response = await client.get(
        f"/api/classes/{world.class_id}/progress", headers=world.teacher.headers
    )
    assert response.status_code == 200
    body = response.json()
    assert [st["username"] for st in body["students"]] == sorted(
        [s["a"].username, s["b"].username, s["c"].username]
    )
    assert [lesson["slug"] for lesson in body["lessons"]] == [LESSON, OTHER_LESSON]
    assert {"slug", "title"} <= set(body["lessons"][0])
    assert len(body["cells"]) == 3 * 2
    cells = {(c["student_id"], c["lesson_slug"]): c for c in body["cells"]}
    nq, ne = len(s["questions"]), len(s["exercises"])
    required = {
        "student_id",
        "lesson_slug",
        "questions_correct",
        "questions_total",
        "exercises_passed",
        "exercises_total",
        "attempts",
        "last_activity_at",
    }
    assert all(required <= set(c) for c in body["cells"])

    a = cells[(s["a"].id, LESSON)]
    assert (a["questions_correct"], a["questions_total"]) == (nq, nq)
    assert (a["exercises_passed"], a["exercises_total"]) == (ne, ne)
    assert a["attempts"] == (nq + 1) + ne
    assert a["state"] == "done"
    last_activity = parse_time(a["last_activity_at"])
    assert last_activity is not None
    assert s["started"] <= last_activity <= utcnow()
    assert a["last_activity_at"].endswith(("Z", "+00:00"))

    b = cells[(s["b"].id, LESSON)]
    assert (b["questions_correct"], b["exercises_passed"]) == (1, 0)
    assert b["attempts"] == 3  # two answers and one graded submission
    assert parse_time(b["last_activity_at"]) == s["failed_at"]
    assert b["state"] == "in_progress"

    c = cells[(s["c"].id, LESSON)]
    assert (c["questions_correct"], c["exercises_passed"], c["attempts"]) == (0, 0, 0)
    assert c["last_activity_at"] is None
    assert c["state"] == "not_started"
    # OTHER_LESSON is past its due date and nobody did it.
    others = {cells[(p.id, OTHER_LESSON)]["state"] for p in (s["a"], s["b"], s["c"])}
    assert others == {"overdue_not_started"}


async def test_without_assignments_the_grid_shows_every_lesson(
    client: httpx.AsyncClient, world: World
) -> None:
    await client.delete(
        f"/api/classes/{world.class_id}/assignments/{LESSON}", headers=world.teacher.headers
    )
    grid = await client.get(
        f"/api/classes/{world.class_id}/progress", headers=world.teacher.headers
    )
    tracks = await client.get("/api/tracks")
    in_course_order = [lesson["slug"] for t in tracks.json() for lesson in t["lessons"]]
    assert [lesson["slug"] for lesson in grid.json()["lessons"]] == in_course_order


async def test_csv_is_the_same_table(client: httpx.AsyncClient, db: Database, world: World) -> None:
    await seed(client, db, world)
    h = world.teacher.headers
    api = (await client.get(f"/api/classes/{world.class_id}/progress", headers=h)).json()
    response = await client.get(f"/api/classes/{world.class_id}/progress.csv", headers=h)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/csv")
    assert "attachment" in response.headers["content-disposition"]
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert len(rows) == len(api["cells"])
    usernames = {st["id"]: st["username"] for st in api["students"]}
    for row, cell in zip(rows, api["cells"], strict=True):
        assert int(row["student_id"]) == cell["student_id"]
        assert row["username"] == usernames[cell["student_id"]]
        assert row["lesson_slug"] == cell["lesson_slug"]
        for key in (
            "questions_correct",
            "questions_total",
            "exercises_passed",
            "exercises_total",
            "attempts",
        ):
            assert int(row[key]) == cell[key], key
        assert row["state"] == cell["state"]
        assert parse_time(row["last_activity_at"]) == parse_time(cell["last_activity_at"])


async def test_grid_page_shows_states_in_words_and_links_to_drill_down(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    s = await seed(client, db, world)
    page = await client.get(f"/classes/{world.class_id}/progress", headers=world.teacher.headers)
    assert page.status_code == 200
    html = page.text
    for label in ("Done on time", "In progress", "Not started, overdue", "Not started"):
        assert label in html
    assert f"/classes/{world.class_id}/students/{s['b'].id}/lessons/{LESSON}" in html
    assert 'class="c s-done"' in html and 'class="c s-overdue_not_started"' in html


async def test_grid_page_filters_and_sorts_on_the_server(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    s = await seed(client, db, world)
    url = f"/classes/{world.class_id}/progress"
    h = world.teacher.headers
    names = [s["a"].username, s["b"].username, s["c"].username]

    def order(html: str) -> list[str]:
        return sorted(
            (n for n in names if f'<th scope="row" class="who">{n}<' in html), key=html.index
        )

    only_b = await client.get(url, params={"q": s["b"].username[:6]}, headers=h)
    assert order(only_b.text) == [s["b"].username]
    done = await client.get(url, params={"state": "done"}, headers=h)
    assert order(done.text) == [s["a"].username]
    by_lesson = await client.get(url, params={"sort": f"lesson:{LESSON}"}, headers=h)
    assert order(by_lesson.text) == [s["a"].username, s["b"].username, s["c"].username]
    reverse = await client.get(url, params={"sort": f"lesson:{LESSON}", "order": "desc"}, headers=h)
    assert order(reverse.text) == [s["c"].username, s["b"].username, s["a"].username]
    by_name_desc = await client.get(url, params={"sort": "student", "order": "desc"}, headers=h)
    assert order(by_name_desc.text) == sorted(names, reverse=True)
    one_lesson = await client.get(url, params={"lesson": OTHER_LESSON}, headers=h)
    assert "Sort by this lesson" in one_lesson.text
    assert one_lesson.text.count('class="lesson-col"') == 1
    # Nonsense parameters fall back to the defaults rather than failing.
    odd = await client.get(
        url, params={"sort": "nonsense", "state": "weird", "lesson": "x"}, headers=h
    )
    assert odd.status_code == 200
    assert order(odd.text) == sorted(names)


async def test_grid_page_pages_large_classes(
    client: httpx.AsyncClient, db: Database, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    await seed(client, db, world)
    monkeypatch.setattr(report_pages, "PER_PAGE", 2)
    url = f"/classes/{world.class_id}/progress"
    first = await client.get(url, headers=world.teacher.headers)
    assert "Page 1 of 2" in first.text
    second = await client.get(url, params={"page": 2}, headers=world.teacher.headers)
    assert "Page 2 of 2" in second.text
    beyond = await client.get(url, params={"page": 99}, headers=world.teacher.headers)
    assert "Page 2 of 2" in beyond.text


# --- a bounded number of queries -----------------------------------------------------


async def grow_class(db: Database, class_id: int, students: int) -> None:
    """Students with answers and submissions in every assigned lesson, inserted in bulk."""
    questions, exercises = await lesson_items(db)
    async with db.sessionmaker() as session:
        ids = await add_students(session, students)
        session.add_all(ClassMember(class_id=class_id, student_id=i) for i in ids)
        now = utcnow()
        for n, student in enumerate(ids):
            for q in questions:
                session.add(
                    QuestionAttempt(
                        user_id=student,
                        question_id=q.id,
                        answer=0,
                        correct=n % 2 == 0,
                        created_at=now,
                    )
                )
            for e in exercises:
                session.add(
                    Submission(
                        user_id=student,
                        exercise_id=e.id,
                        code="x",
                        status="done",
                        verdict="passed" if n % 3 else "runtime_error",
                        runs=[
                            {"device": "cpu", "verdict": "runtime_error", "stderr": "ValueError: x"}
                        ],
                        created_at=now,
                    )
                )
        await session.flush()
        await recorded(session, *ids)
        await session.commit()


async def count_queries(
    db: Database, client: httpx.AsyncClient, url: str, headers: dict[str, str]
) -> int:
    statements: list[str] = []

    def listener(*args: Any) -> None:
        statement: str = args[2]  # (conn, cursor, statement, parameters, context, many)
        statements.append(statement)

    engine = db.engine.sync_engine
    event.listen(engine, "before_cursor_execute", listener)
    try:
        response = await client.get(url, headers=headers)
    finally:
        event.remove(engine, "before_cursor_execute", listener)
    assert response.status_code == 200, response.text
    return len(statements)


@pytest.mark.parametrize(
    "path",
    [
        "/api/classes/{cid}/progress",
        "/classes/{cid}/progress",
        "/api/classes/{cid}/progress.csv",
        "/classes/{cid}/insight",
        "/api/classes/{cid}/insight",
    ],
)
async def test_the_number_of_queries_does_not_grow_with_the_class(
    client: httpx.AsyncClient, db: Database, world: World, path: str
) -> None:
    await set_due(db, world.class_id, OTHER_LESSON, None)
    url = path.replace("{cid}", str(world.class_id))
    await grow_class(db, world.class_id, 4)  # 5 students with the member
    # Once first: the token's "last used" time is written at most every few minutes, so only
    # the first request of a run pays for it.
    await count_queries(db, client, url, world.teacher.headers)
    small = await count_queries(db, client, url, world.teacher.headers)
    await grow_class(db, world.class_id, 15)  # 20 students
    large = await count_queries(db, client, url, world.teacher.headers)
    assert large == small, (small, large)
    assert small < 25
