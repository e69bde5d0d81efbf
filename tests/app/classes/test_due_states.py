"""Due dates that tell the truth (issue 16.1, issue 13): the six states against each
student's effective due date, when the lesson was completed and how late, extensions for
one student only, the late policy's score, and the same in the API, the CSV and the grid
page."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from datetime import datetime, timedelta

import httpx
import pytest

from app.classes import service
from app.classes.due import LatePolicy, score_percent
from app.db import Database
from app.models import QuestionAttempt, utcnow
from tests.app.classes.conftest import (
    LESSON,
    OTHER_LESSON,
    Person,
    World,
    add_person,
    add_submission,
    lesson_items,
    recorded,
    set_due,
)


def parse_time(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


async def answered(db: Database, person: Person, question_id: str, ok: bool, at: datetime) -> None:
    async with db.sessionmaker() as session:
        session.add(
            QuestionAttempt(
                user_id=person.id, question_id=question_id, answer=0, correct=ok, created_at=at
            )
        )
        await session.flush()
        await recorded(session, person.id)
        await session.commit()


async def do_everything(db: Database, person: Person, at: datetime, last_at: datetime) -> None:
    """Every item of LESSON right at `at`, except the last exercise, passed at `last_at`."""
    questions, exercises = await lesson_items(db)
    for q in questions:
        await answered(db, person, q.id, True, at)
    for e in exercises[:-1]:
        await add_submission(db, user_id=person.id, exercise_id=e.id, verdict="passed", at=at)
    await add_submission(
        db, user_id=person.id, exercise_id=exercises[-1].id, verdict="passed", at=last_at
    )


@dataclass
class Seed:
    due: datetime
    extended_to: datetime
    items: int
    people: dict[str, Person]

    def id(self, name: str) -> int:
        return self.people[name].id


async def seed(db: Database, world: World) -> Seed:
    """LESSON was due two days ago; OTHER_LESSON is due in a week. on_time did it all before
    the due date; late did its last exercise 30 hours after it; working and extended tried
    a question; never and extended_never did nothing; the extended ones have three more
    days."""
    due = utcnow() - timedelta(days=2)
    later = utcnow() + timedelta(days=3)
    await set_due(db, world.class_id, LESSON, due)
    await set_due(db, world.class_id, OTHER_LESSON, utcnow() + timedelta(days=7))
    people = {"on_time": world.member}
    async with db.sessionmaker() as session:
        for name in ("late", "working", "never", "extended", "extended_never"):
            username = f"{name.replace('_', '')}{world.member.username[1:8]}"
            person = await add_person(session, username=username)
            await service.join(session=session, student_id=person.id, code=world.join_code)
            people[name] = person
        for name in ("extended", "extended_never"):
            await service.set_extension(
                session=session,
                class_id=world.class_id,
                lesson_slug=LESSON,
                student_id=people[name].id,
                due_at=later,
            )
        await session.commit()
    questions, exercises = await lesson_items(db)
    await do_everything(db, people["on_time"], due - timedelta(days=1), due - timedelta(hours=1))
    await do_everything(db, people["late"], due - timedelta(days=1), due + timedelta(hours=30))
    for name in ("working", "extended"):
        await answered(db, people[name], questions[0].id, False, due - timedelta(hours=5))
    return Seed(due, later, len(questions) + len(exercises), people)


async def progress(client: httpx.AsyncClient, world: World) -> dict:
    response = await client.get(
        f"/api/classes/{world.class_id}/progress", headers=world.teacher.headers
    )
    assert response.status_code == 200, response.text
    return response.json()


def cells_of(body: dict) -> dict[tuple[int, str], dict]:
    return {(c["student_id"], c["lesson_slug"]): c for c in body["cells"]}


async def test_each_state_with_completed_at_and_how_late(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    s = await seed(db, world)
    body = await progress(client, world)
    cells = cells_of(body)
    due = s.due

    def cell(name: str, slug: str = LESSON) -> dict:
        return cells[(s.id(name), slug)]

    states = {name: cell(name)["state"] for name in ("on_time", "late", "working", "never")}
    assert states == {
        "on_time": "done",
        "late": "done_late",
        "working": "overdue_in_progress",
        "never": "overdue_not_started",
    }
    # completed_at: the submission that did the last item.
    assert parse_time(cell("on_time")["completed_at"]) == due - timedelta(hours=1)
    assert parse_time(cell("late")["completed_at"]) == due + timedelta(hours=30)
    assert cell("working")["completed_at"] is None
    assert cell("late")["late_by_hours"] == 30.0
    assert cell("on_time")["late_by_hours"] is None
    assert cell("never")["late_by_hours"] == pytest.approx(48, abs=0.2)
    # The extension moves the due date of that student only.
    assert cell("extended")["state"] == "in_progress"
    assert cell("extended_never")["state"] == "not_started"
    for name in ("extended", "extended_never"):
        assert parse_time(cell(name)["extended_to"]) == s.extended_to
        assert parse_time(cell(name)["due_at"]) == s.extended_to
        assert cell(name)["late_by_hours"] is None
    assert cell("working")["extended_to"] is None
    assert parse_time(cell("working")["due_at"]) == due
    # Not yet due: no "overdue".
    assert cell("never", OTHER_LESSON)["state"] == "not_started"
    # Students carry their names, lessons their due dates and policy.
    student = next(x for x in body["students"] if x["id"] == world.member.id)
    assert student["display_name"] == world.member.username
    assert student["student_number"] is None
    detail = await client.get(f"/api/classes/{world.class_id}", headers=world.teacher.headers)
    roster = next(x for x in detail.json()["students"] if x["id"] == world.member.id)
    assert roster["display_name"] == world.member.username
    lesson = next(x for x in body["lessons"] if x["slug"] == LESSON)
    assert parse_time(lesson["due_at"]) == due
    assert (lesson["late_work"], lesson["late_penalty_percent"]) == (True, 0)


async def test_late_policy_sets_the_score(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    s = await seed(db, world)
    items = s.items
    url = f"/api/classes/{world.class_id}/assignments/{LESSON}"
    headers = world.teacher.headers
    late_id = s.id("late")

    def score(body: dict, name: str) -> float:
        return cells_of(body)[(s.id(name), LESSON)]["score_percent"]

    body = await progress(client, world)
    assert score(body, "on_time") == 100.0
    assert score(body, "late") == 100.0  # late work counts in full by default

    due = s.due
    changed = await client.put(
        url, json={"due_at": due.isoformat(), "late_penalty_percent": 20}, headers=headers
    )
    assert changed.status_code == 200, changed.text
    assert changed.json()["late_penalty_percent"] == 20 and changed.json()["late_work"] is True
    body = await progress(client, world)
    assert score(body, "late") == round(100 * (items - 1 + 0.8) / items, 1)
    assert score(body, "on_time") == 100.0
    assert cells_of(body)[(late_id, LESSON)]["state"] == "done_late"

    changed = await client.put(
        url, json={"due_at": due.isoformat(), "late_work": False}, headers=headers
    )
    assert changed.json()["late_penalty_percent"] == 20  # left out: unchanged
    body = await progress(client, world)
    assert score(body, "late") == round(100 * (items - 1) / items, 1)
    # An extension past the late work makes it on time again.
    extended = await client.put(
        f"{url}/extensions/{late_id}",
        json={"due_at": (due + timedelta(days=2)).isoformat()},
        headers=headers,
    )
    assert extended.status_code == 200, extended.text
    body = await progress(client, world)
    assert score(body, "late") == 100.0
    assert cells_of(body)[(late_id, LESSON)]["state"] == "done"

    refused = await client.put(url, json={"late_penalty_percent": 101}, headers=headers)
    assert refused.status_code == 422
    assert "late_penalty_percent" in refused.text


def test_score_counts_items_done_after_the_due_date_under_the_policy() -> None:
    assert score_percent(items_total=4, items_done=4, items_on_time=2, policy=LatePolicy()) == 100
    half = LatePolicy(late_work=True, penalty_percent=50)
    assert score_percent(items_total=4, items_done=4, items_on_time=2, policy=half) == 75
    none = LatePolicy(late_work=False)
    assert score_percent(items_total=4, items_done=3, items_on_time=2, policy=none) == 50
    assert score_percent(items_total=0, items_done=0, items_on_time=0, policy=none) == 0


async def test_extensions_through_the_api(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    s = await seed(db, world)
    never = s.id("never")
    url = f"/api/classes/{world.class_id}/assignments/{LESSON}/extensions/{never}"
    headers = world.teacher.headers
    response = await client.put(url, json={"due_at": "2099-05-01"}, headers=headers)
    assert response.status_code == 200, response.text
    assert response.json() == {
        "student_id": never,
        "lesson_slug": LESSON,
        "due_at": "2099-05-01T23:59:59Z",
    }
    cells = cells_of(await progress(client, world))
    assert cells[(never, LESSON)]["state"] == "not_started"
    working = s.id("working")
    assert cells[(working, LESSON)]["state"] == "overdue_in_progress"

    assert (await client.delete(url, headers=headers)).status_code == 204
    assert (await client.delete(url, headers=headers)).status_code == 404
    cells = cells_of(await progress(client, world))
    assert cells[(never, LESSON)]["state"] == "overdue_not_started"
    assert cells[(never, LESSON)]["extended_to"] is None

    bad = await client.put(url, json={"due_at": "soon"}, headers=headers)
    assert bad.status_code == 422 and "due_at" in bad.text
    unassigned = await client.put(
        f"/api/classes/{world.class_id}/assignments/autograd-basics/extensions/{never}",
        json={"due_at": "2099-05-01"},
        headers=headers,
    )
    assert unassigned.status_code == 404
    outsider = await client.put(
        f"/api/classes/{world.class_id}/assignments/{LESSON}/extensions/{world.outsider.id}",
        json={"due_at": "2099-05-01"},
        headers=headers,
    )
    assert outsider.status_code == 404
    # The student sees their own due date.
    extended = s.people["extended"]
    joined = await client.get("/api/classes/joined", headers=extended.headers)
    mine = next(c for c in joined.json() if c["id"] == world.class_id)
    lesson = next(a for a in mine["assignments"] if a["lesson_slug"] == LESSON)
    assert parse_time(lesson["extended_to"]) == s.extended_to
    assert lesson["state"] == "in_progress"


async def test_csv_carries_state_completed_due_extension_and_lateness(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    s = await seed(db, world)
    response = await client.get(
        f"/api/classes/{world.class_id}/progress.csv", headers=world.teacher.headers
    )
    assert response.status_code == 200
    rows = list(csv.DictReader(io.StringIO(response.text)))
    header = next(csv.reader(io.StringIO(response.text)))
    assert header[:13] == [
        "student_id",
        "username",
        "lesson_slug",
        "lesson_title",
        "state",
        "questions_correct",
        "questions_total",
        "exercises_passed",
        "exercises_total",
        "attempts",
        "last_activity_at",
        "due_at",
        "exercises_given_up",
    ]
    assert header[13:] == [
        "completed_at",
        "extended_to",
        "late_by_hours",
        "score_percent",
        "answers_requested",
        "display_name",
        "student_number",
    ]
    by = {(int(r["student_id"]), r["lesson_slug"]): r for r in rows}
    late = by[(s.id("late"), LESSON)]
    assert late["state"] == "done_late" and float(late["late_by_hours"]) == 30.0
    assert parse_time(late["completed_at"]) == s.due + timedelta(hours=30)
    extended = by[(s.id("extended"), LESSON)]
    assert parse_time(extended["extended_to"]) == s.extended_to
    assert parse_time(extended["due_at"]) == s.extended_to
    assert extended["late_by_hours"] == "" and extended["state"] == "in_progress"
    never = by[(s.id("never"), LESSON)]
    assert never["state"] == "overdue_not_started" and never["extended_to"] == ""


async def test_grid_page_states_filter_counts_and_extension_form(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    s = await seed(db, world)
    headers = world.teacher.headers | {"accept": "text/html"}
    page = await client.get(f"/classes/{world.class_id}/progress", headers=headers)
    assert page.status_code == 200
    html = page.text
    for state in ("done", "done_late", "overdue_in_progress", "overdue_not_started"):
        assert f'class="c s-{state}"' in html, state
    assert "1 d late" in html  # 30 hours
    assert "extended to" in html
    # Per lesson, students per state: LESSON has 2 never-active students overdue... one.
    assert "students with a lesson:" in html

    never_active = await client.get(
        f"/classes/{world.class_id}/progress?state=never_active&lesson={LESSON}", headers=headers
    )
    names = {s.people[n].username for n in ("never", "extended_never")}
    others = {s.people[n].username for n in ("on_time", "late", "working", "extended")}
    assert all(f">{n}</th>" in never_active.text for n in names)
    assert not any(f">{n}</th>" in never_active.text for n in others)

    # The drill-down's form gives one student an extension, without JavaScript.
    working = s.people["working"]
    drill = f"/classes/{world.class_id}/students/{working.id}/lessons/{LESSON}"
    form = await client.get(drill, headers=headers)
    assert "Extended due date" in form.text
    token = form.text.split('name="csrf_token" value="')[1].split('"')[0]
    refused = await client.post(
        f"{drill}/extension", data={"csrf_token": token, "due_date": "later"}, headers=headers
    )
    assert refused.status_code == 422 and 'value="later"' in refused.text
    assert "Extended due date:" in refused.text
    done = await client.post(
        f"{drill}/extension", data={"csrf_token": token, "due_date": "2099-01-02"}, headers=headers
    )
    assert done.status_code == 303 and done.headers["location"] == drill
    cells = cells_of(await progress(client, world))
    assert cells[(working.id, LESSON)]["state"] == "in_progress"
    removed = await client.post(
        f"{drill}/extension/remove", data={"csrf_token": token}, headers=headers
    )
    assert removed.status_code == 303
    cells = cells_of(await progress(client, world))
    assert cells[(working.id, LESSON)]["state"] == "overdue_in_progress"


async def test_class_page_sets_the_late_policy(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    headers = world.teacher.headers | {"accept": "text/html"}
    page = await client.get(f"/classes/{world.class_id}", headers=headers)
    token = page.text.split('name="csrf_token" value="')[1].split('"')[0]
    form = {"csrf_token": token, "lesson_slug": LESSON, "due_date": "", "policy": "1"}
    bad = await client.post(
        f"/classes/{world.class_id}/assignments",
        data=form | {"late_work": "1", "late_penalty_percent": "150"},
        headers=headers,
    )
    assert bad.status_code == 422
    assert "Late penalty: give a whole number" in bad.text and 'value="150"' in bad.text
    ok = await client.post(
        f"/classes/{world.class_id}/assignments",
        data=form | {"late_penalty_percent": "10"},  # late_work unticked
        headers=headers,
    )
    assert ok.status_code == 303
    rows = await client.get(
        f"/api/classes/{world.class_id}/assignments", headers=world.teacher.headers
    )
    mine = next(a for a in rows.json() if a["lesson_slug"] == LESSON)
    assert (mine["late_work"], mine["late_penalty_percent"]) == (False, 10)
    # A form without the policy (the add form, older clients) leaves it as it is.
    again = await client.post(
        f"/classes/{world.class_id}/assignments",
        data={"csrf_token": token, "lesson_slug": LESSON, "due_date": ""},
        headers=headers,
    )
    assert again.status_code == 303
    rows = await client.get(
        f"/api/classes/{world.class_id}/assignments", headers=world.teacher.headers
    )
    mine = next(a for a in rows.json() if a["lesson_slug"] == LESSON)
    assert (mine["late_work"], mine["late_penalty_percent"]) == (False, 10)
