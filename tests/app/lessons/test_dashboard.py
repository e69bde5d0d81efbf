"""The progress page (/progress): where to carry on, what was done last, each lesson's
progress and the person's classes; and the header's way to it for each role."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import httpx
import pytest

from app.classes import service as classes
from app.db import Database
from app.models import Submission, utcnow
from tests.app.classes.conftest import (
    Person,
    add_person,
    lesson_items,
    recorded,
    right_answer,
    wrong_answer,
)

HTML = {"Accept": "text/html"}
FIRST, LAST = "tensor-basics", "mixed-precision-and-data-loading"


async def _person(db: Database, role: str = "student") -> Person:
    async with db.sessionmaker() as session, session.begin():
        return await add_person(session, role)


async def _page(client: httpx.AsyncClient, person: Person) -> str:
    response = await client.get("/progress", headers=person.headers | HTML)
    assert response.status_code == 200, response.text
    return response.text


def _continue_link(page: str) -> str:
    match = re.search(r'<a class="button" href="([^"]+)" aria-describedby="next-step">', page)
    assert match, "no Continue button"
    return match.group(1)


async def _answer(client: httpx.AsyncClient, person: Person, question_id: str, answer: Any) -> None:
    response = await client.post(
        f"/api/questions/{question_id}/answers", json={"answer": answer}, headers=person.headers
    )
    assert response.status_code == 200, response.text


async def _pass(db: Database, user_id: int, exercise_id: str, **values: Any) -> None:
    fields = {"mode": "grade", "status": "done", "verdict": "passed"} | values
    async with db.sessionmaker() as session, session.begin():
        session.add(Submission(user_id=user_id, exercise_id=exercise_id, code="print()", **fields))
        await session.flush()
        await recorded(session, user_id)  # inserted straight into the table


async def test_the_page_asks_a_visitor_to_log_in_and_comes_back(
    client: httpx.AsyncClient,
) -> None:
    response = await client.get("/progress", headers=HTML)
    assert response.status_code == 303
    assert response.headers["location"] == "/login?next=/progress"


async def test_a_new_student_starts_with_the_first_lesson(
    client: httpx.AsyncClient, db: Database
) -> None:
    student = await _person(db)
    page = await _page(client, student)
    _, exercises = await lesson_items(db, FIRST)
    assert _continue_link(page) == f"/lessons/{FIRST}#exercise-{exercises[0].id}"
    assert ">Start</a>" in page
    assert "Nothing done yet" in page
    assert "You are not in a class yet." in page
    assert re.search(r"0 of \d+ lessons completed\.", page)
    # Every lesson has its row, with its counts.
    assert f'<a href="/lessons/{FIRST}">Tensor basics</a>' in page
    assert f'<a href="/lessons/{LAST}">' in page


async def test_it_goes_on_where_the_student_left_off(
    client: httpx.AsyncClient, db: Database
) -> None:
    student = await _person(db)
    questions, exercises = await lesson_items(db, "gpu-support")
    await _answer(client, student, questions[1].id, wrong_answer(questions[1]))
    page = await _page(client, student)
    assert "Last: you answered a question in “GPU support”, not quite right" in page
    assert f'href="/lessons/gpu-support#q-{questions[1].id}">Go back to it' in page
    # The lesson's first unfinished item, in the page's order: its exercise first.
    assert _continue_link(page) == f"/lessons/gpu-support#exercise-{exercises[0].id}"
    assert ">Continue</a>" in page

    await _pass(db, student.id, exercises[0].id)
    page = await _page(client, student)
    assert "Last: you submitted “Device-independent code” in “GPU support”" in page
    assert ": Passed." in page
    assert _continue_link(page) == f"/lessons/gpu-support#q-{questions[0].id}"

    await _answer(client, student, questions[0].id, right_answer(questions[0]))
    page = await _page(client, student)
    assert "Last: you answered a question in “GPU support”, correctly" in page
    # Question 2's latest answer is wrong: that is next.
    assert _continue_link(page) == f"/lessons/gpu-support#q-{questions[1].id}"
    assert "Next: question 2 in “GPU support”." in page


async def test_a_finished_lesson_hands_over_to_the_next_unfinished_one(
    client: httpx.AsyncClient, db: Database
) -> None:
    student = await _person(db)
    questions, exercises = await lesson_items(db, FIRST)
    for exercise in exercises:
        await _pass(db, student.id, exercise.id)
    for question in questions:
        await _answer(client, student, question.id, right_answer(question))
    page = await _page(client, student)
    assert re.search(r"1 of \d+ lessons completed\.", page)
    assert re.search(r'<tr class="done">\s*<th scope="row"><a href="/lessons/tensor-basics">', page)
    link = _continue_link(page)
    assert link.startswith("/lessons/") and not link.startswith(f"/lessons/{FIRST}")
    # The course's next lesson after the one finished.
    assert link.startswith("/lessons/dtypes-and-promotion#")


async def test_try_outs_and_unfinished_submissions_are_said_as_they_are(
    client: httpx.AsyncClient, db: Database
) -> None:
    student = await _person(db)
    _, exercises = await lesson_items(db, FIRST)
    await _pass(db, student.id, exercises[0].id, mode="run", verdict=None)
    page = await _page(client, student)
    assert "Last: you tried out your code for “" in page
    await _pass(db, student.id, exercises[1].id, status="queued", verdict=None)
    page = await _page(client, student)
    assert "it is being graded" in page


async def test_a_class_member_sees_assignments_with_due_dates_and_starts_there(
    client: httpx.AsyncClient, db: Database
) -> None:
    async with db.sessionmaker() as session, session.begin():
        teacher = await add_person(session, "teacher")
        student = await add_person(session)
        mine = await classes.create_class(session=session, teacher_id=teacher.id, name="Group B")
        await classes.join(session=session, student_id=student.id, code=mine.join_code)
        await classes.set_assignment(
            session=session,
            class_id=mine.id,
            lesson_slug="gpu-memory",
            due_at=utcnow() + timedelta(days=3),
        )
    page = await _page(client, student)
    assert "Group B" in page
    assert f"with {teacher.username}" in page
    assert '<a href="/lessons/gpu-memory">' in page
    assert "(in 2 days)" in page or "(in 3 days)" in page
    assert "Not started" in page
    # Nothing done yet: the assignment is where to begin.
    assert _continue_link(page).startswith("/lessons/gpu-memory#")

    page = await _page(client, teacher)
    assert "Your classes" in page
    assert f'<a href="/classes/{mine.id}/progress">progress</a>' in page
    assert "Your classes and assignments" not in page


@pytest.mark.parametrize(
    ("role", "links", "absent"),
    [
        ("student", ["/progress", "/classes"], ["/admin"]),
        ("teacher", ["/progress", "/classes"], ["/admin"]),
        ("admin", ["/progress", "/admin"], ["/classes"]),
    ],
)
async def test_the_header_leads_each_role_to_progress_and_classes(
    client: httpx.AsyncClient, db: Database, role: str, links: list[str], absent: list[str]
) -> None:
    person = await _person(db, role)
    page = (await client.get("/", headers=person.headers | HTML)).text
    nav = page[page.index('<nav aria-label="Main">') : page.index("</nav>")]
    for link in links:
        assert f'href="{link}"' in nav
    for link in absent:
        assert f'href="{link}"' not in nav
    here = (await client.get("/progress", headers=person.headers | HTML)).text
    assert '<a href="/progress" aria-current="page">Progress</a>' in here


async def test_the_header_of_a_visitor_has_no_progress(client: httpx.AsyncClient) -> None:
    page = (await client.get("/", headers=HTML)).text
    nav = page[page.index('<nav aria-label="Main">') : page.index("</nav>")]
    assert 'href="/progress"' not in nav
    assert 'href="/login"' in nav


async def test_the_account_page_links_to_the_progress_page(
    client: httpx.AsyncClient, db: Database
) -> None:
    student = await _person(db)
    page = (await client.get("/account", headers=student.headers | HTML)).text
    assert 'href="/progress"' in page
