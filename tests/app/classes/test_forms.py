"""The class forms under hostile input (overlong, empty, odd Unicode): each answers with the
form again, what was typed kept, and one message naming the field and its rule; removals
ask first; a past due date takes an explicit tick; the timeline filters by exercise and
verdict; a student's finished work does not say its date passed."""

from __future__ import annotations

import re
from datetime import timedelta

import httpx
import pytest

from app.db import Database
from app.models import utcnow
from tests.app.classes.conftest import (
    LESSON,
    OTHER_LESSON,
    World,
    add_submission,
    lesson_items,
    right_answer,
    set_due,
)
from tests.app.classes.test_pages import log_in, post_form
from tests.helpers import browser_signup, csrf_from


def field_errors(html: str) -> list[str]:
    return re.findall(r'class="field-error"[^>]*>([^<]*)<', html)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("x" * 5000, "Class name: use at most 100 characters (this has 5000)."),
        ("   ", "Class name: fill this in."),
        ("", "Class name: fill this in."),
    ],
)
async def test_class_name_is_refused_on_the_form_with_its_rule(
    client: httpx.AsyncClient, world: World, name: str, message: str
) -> None:
    await log_in(client, world.teacher.username)
    for url in ("/classes", f"/classes/{world.class_id}/rename"):
        response = await post_form(client, url, {"name": name})
        assert response.status_code == 422, url
        assert field_errors(response.text) == [message]
        assert f'value="{name}"' in response.text  # what was typed comes back


async def test_odd_unicode_class_names_are_kept_as_typed(
    client: httpx.AsyncClient, world: World
) -> None:
    await log_in(client, world.teacher.username)
    name = "Grup ğüşiöç — 日本 🧪\u200b"
    created = await post_form(client, "/classes", {"name": name})
    assert created.status_code == 303
    assert name in (await client.get(created.headers["location"])).text


async def test_an_overlong_join_code_is_answered_on_the_form(
    client: httpx.AsyncClient, world: World
) -> None:
    await browser_signup(client)
    page = await client.get("/classes")
    code = "Ä" * 300
    response = await client.post(
        "/join", data={"join_code": code, "csrf_token": csrf_from(page.text)}
    )
    assert response.status_code == 422
    assert "Join code: use at most 64 characters (this has 300)." in response.text
    assert f'value="{code}"' in response.text
    empty = await client.post("/join", data={"join_code": " ", "csrf_token": csrf_from(page.text)})
    assert empty.status_code == 422 and "Join code: fill this in." in empty.text


async def test_assign_form_takes_any_text_and_names_the_field(
    client: httpx.AsyncClient, world: World
) -> None:
    await log_in(client, world.teacher.username)
    url = f"/classes/{world.class_id}/assignments"
    long_slug = await post_form(client, url, {"lesson_slug": "x" * 500, "due_date": ""})
    assert long_slug.status_code == 422
    assert field_errors(long_slug.text) == ["Choose one of the lessons in the list."]
    long_date = await post_form(client, url, {"lesson_slug": OTHER_LESSON, "due_date": "9" * 500})
    assert long_date.status_code == 422
    assert "YYYY-MM-DD" in long_date.text


async def test_a_past_due_date_is_refused_until_ticked(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    await log_in(client, world.teacher.username)
    url = f"/classes/{world.class_id}/assignments"
    past = (utcnow() - timedelta(days=3)).strftime("%Y-%m-%d")
    refused = await post_form(client, url, {"lesson_slug": OTHER_LESSON, "due_date": past})
    assert refused.status_code == 422
    [message] = field_errors(refused.text)
    assert message.startswith(f"Due date: {past} has passed")
    assert 'name="past_ok"' in refused.text and f'value="{past}"' in refused.text
    api = (await client.get(f"/api/classes/{world.class_id}")).json()
    assert [a["lesson_slug"] for a in api["assignments"]] == [LESSON]

    ticked = await post_form(
        client, url, {"lesson_slug": OTHER_LESSON, "due_date": past, "past_ok": "1"}
    )
    assert ticked.status_code == 303
    # Saving the date it already has (the row's form) needs no tick again.
    again = await post_form(client, url, {"lesson_slug": OTHER_LESSON, "due_date": past})
    assert again.status_code == 303

    # The row of an assigned lesson shows the refusal in its own form.
    await set_due(db, world.class_id, LESSON, utcnow() + timedelta(days=5))
    row = await post_form(client, url, {"lesson_slug": LESSON, "due_date": past})
    assert row.status_code == 422
    assert f'aria-describedby="due-{LESSON}-error"' in row.text


async def test_removals_ask_first_on_a_page_of_their_own(
    client: httpx.AsyncClient, world: World
) -> None:
    await log_in(client, world.teacher.username)
    page = (await client.get(f"/classes/{world.class_id}")).text
    student_url = f"/classes/{world.class_id}/students/{world.member.id}/remove"
    lesson_url = f"/classes/{world.class_id}/assignments/{LESSON}/remove"
    # The class page links to the confirm step instead of posting at once.
    assert f'href="{student_url}"' in page and f'href="{lesson_url}"' in page
    assert f'action="{student_url}"' not in page and f'action="{lesson_url}"' not in page

    ask = await client.get(student_url)
    assert ask.status_code == 200
    assert f"Remove {world.member.username} from the class?" in ask.text
    assert f'action="{student_url}"' in ask.text
    assert f'href="/classes/{world.class_id}#roster"' in ask.text  # the way back
    ask_lesson = await client.get(lesson_url)
    assert ask_lesson.status_code == 200 and f'action="{lesson_url}"' in ask_lesson.text
    # Asking changed nothing.
    api = (await client.get(f"/api/classes/{world.class_id}")).json()
    assert len(api["students"]) == 1 and len(api["assignments"]) == 1

    assert (await post_form(client, student_url)).status_code == 303
    assert (await post_form(client, lesson_url)).status_code == 303
    api = (await client.get(f"/api/classes/{world.class_id}")).json()
    assert api["students"] == [] and api["assignments"] == []
    gone = await client.get(lesson_url)
    assert gone.status_code == 404


async def test_the_join_link_is_a_link_with_a_copy_button(
    client: httpx.AsyncClient, world: World
) -> None:
    await log_in(client, world.teacher.username)
    page = (await client.get(f"/classes/{world.class_id}")).text
    join_url = (await client.get(f"/api/classes/{world.class_id}")).json()["join_url"]
    assert f'<a href="{join_url}" id="join-url">' in page
    # Hidden until the script finds a clipboard to copy to (tests/browser/test_forms.py).
    assert 'data-copy="#join-url"' in page


async def test_the_timeline_filters_by_exercise_and_verdict(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    _, exercises = await lesson_items(db)
    first, second = exercises[0], exercises[1]
    for exercise, verdict in ((first, "wrong_output"), (first, "passed"), (second, "timeout")):
        await add_submission(db, user_id=world.member.id, exercise_id=exercise.id, verdict=verdict)
    await log_in(client, world.teacher.username)
    url = f"/classes/{world.class_id}/students/{world.member.id}/lessons/{LESSON}"

    def shown(html: str) -> list[str]:
        return re.findall(r'<li class="event submission [^"]*verdict-(\w+)"', html)

    everything = (await client.get(url)).text
    assert sorted(shown(everything)) == ["passed", "timeout", "wrong_output"]
    assert '<select id="filter-exercise" name="exercise">' in everything
    only_first = (await client.get(url, params={"exercise": first.id})).text
    assert sorted(shown(only_first)) == ["passed", "wrong_output"]
    assert "Showing 2 of 3 events." in only_first
    wrong = (await client.get(url, params={"verdict": "wrong_output"})).text
    assert shown(wrong) == ["wrong_output"]
    both = (await client.get(url, params={"exercise": second.id, "verdict": "passed"})).text
    assert shown(both) == [] and "Nothing matches this filter." in both
    # A choice the page does not offer shows everything rather than failing.
    odd = await client.get(url, params={"exercise": "nope", "verdict": "<b>"})
    assert odd.status_code == 200 and len(shown(odd.text)) == 3


async def test_a_students_finished_work_does_not_say_its_date_passed(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    await set_due(db, world.class_id, LESSON, utcnow() - timedelta(days=2))
    await set_due(db, world.class_id, OTHER_LESSON, utcnow() - timedelta(days=2))
    questions, exercises = await lesson_items(db)
    for q in questions:
        response = await client.post(
            f"/api/questions/{q.id}/answers",
            json={"answer": right_answer(q)},
            headers=world.member.headers,
        )
        assert response.status_code == 200
    for exercise in exercises:
        await add_submission(db, user_id=world.member.id, exercise_id=exercise.id, verdict="passed")
    await log_in(client, world.member.username)
    for path in ("/", "/classes", "/progress"):
        html = (await client.get(path)).text
        # The progress page lists every lesson first; its classes come after.
        html = html[html.find('class="dashboard-classes"') :] if path == "/progress" else html
        done = html[html.index(f'href="/lessons/{LESSON}"') :]
        done = done[: done.index("</li>")]
        assert "Done" in done and "(date passed)" not in done, path
        late = html[html.index(f'href="/lessons/{OTHER_LESSON}"') :]
        assert "(date passed)" in late[: late.index("</li>")], path
