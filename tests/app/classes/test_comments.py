"""Comments on attempts (issue 16.5): the teacher writes one on the drill-down (a plain
form), the student sees it beside that attempt on the lesson page and as `comments` on the
submission in the API; refusals name the field and keep what was typed."""

from __future__ import annotations

import httpx

from app.db import Database
from tests.app.classes.conftest import LESSON, OTHER_LESSON, World, add_submission, lesson_items

TEXT = "Look at line 2: x + 1 is not x * 2.\nTry again."


def drill(world: World) -> str:
    return f"/classes/{world.class_id}/students/{world.member.id}/lessons/{LESSON}"


async def token(client: httpx.AsyncClient, world: World) -> str:
    page = await client.get(drill(world), headers=world.teacher.headers)
    assert page.status_code == 200, page.text
    return page.text.split('name="csrf_token" value="')[1].split('"')[0]


async def test_the_student_sees_the_comment_beside_that_attempt(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    _, exercises = await lesson_items(db)
    first = await add_submission(
        db, user_id=world.member.id, exercise_id=exercises[0].id, verdict="wrong_output"
    )
    second = await add_submission(
        db, user_id=world.member.id, exercise_id=exercises[0].id, verdict="passed", code="x\n"
    )
    headers = world.teacher.headers
    saved = await client.post(
        f"{drill(world)}/comments",
        data={"csrf_token": await token(client, world), "submission_id": str(first), "text": TEXT},
        headers=headers,
    )
    assert saved.status_code == 303, saved.text
    assert saved.headers["location"] == f"{drill(world)}#submission-{first}"
    page = (await client.get(drill(world), headers=headers)).text
    assert "Comment saved" in page
    event = page.split(f'id="submission-{first}"')[1].split("</li>")[0]
    assert "Look at line 2: x + 1 is not x * 2." in event and "Your comment" in event

    # The API: the student's own submission, alone and in the list.
    mine = world.member.headers
    one = (await client.get(f"/api/submissions/{first}", headers=mine)).json()
    assert [c["text"] for c in one["comments"]] == [TEXT]
    assert one["comments"][0]["teacher"] == world.teacher.username
    other = (await client.get(f"/api/submissions/{second}", headers=mine)).json()
    assert other["comments"] == []
    listed = (
        await client.get(f"/api/exercises/{exercises[0].id}/submissions", headers=mine)
    ).json()
    assert {s["id"]: len(s["comments"]) for s in listed} == {first: 1, second: 0}

    # The lesson page: beside that attempt, not the other.
    lesson = (await client.get(f"/lessons/{LESSON}", headers=mine)).text
    attempt = lesson.split(f'data-submission="{first}"')[1].split("</li>")[0]
    assert "Your teacher commented" in attempt and "x + 1 is not x * 2." in attempt
    assert world.teacher.username in attempt
    passed = lesson.split(f'data-submission="{second}"')[1].split("</li>")[0]
    assert "Your teacher commented" not in passed


async def test_refusals_keep_what_was_typed(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    _, exercises = await lesson_items(db)
    mine = await add_submission(
        db, user_id=world.member.id, exercise_id=exercises[0].id, verdict="wrong_output"
    )
    _, elsewhere = await lesson_items(db, OTHER_LESSON)
    other_lesson = await add_submission(
        db, user_id=world.member.id, exercise_id=elsewhere[0].id, verdict="passed"
    )
    someone_else = await add_submission(
        db, user_id=world.outsider.id, exercise_id=exercises[0].id, verdict="passed"
    )
    csrf = await token(client, world)
    url, headers = f"{drill(world)}/comments", world.teacher.headers

    empty = await client.post(
        url, data={"csrf_token": csrf, "submission_id": str(mine), "text": "  "}, headers=headers
    )
    assert empty.status_code == 422
    assert "Comment: write something for the student to read." in empty.text
    long = "x" * 2001
    too_long = await client.post(
        url, data={"csrf_token": csrf, "submission_id": str(mine), "text": long}, headers=headers
    )
    assert too_long.status_code == 422
    assert "use at most 2000 characters (this has 2001)" in too_long.text
    assert long in too_long.text  # nothing typed is lost
    for target in (other_lesson, someone_else, "nonsense"):
        refused = await client.post(
            url,
            data={"csrf_token": csrf, "submission_id": str(target), "text": "hello"},
            headers=headers,
        )
        assert refused.status_code == 422
        assert "not this student&#39;s work on this lesson" in refused.text
    # Another teacher cannot comment at all.
    outsider = await client.post(
        url,
        data={"csrf_token": csrf, "submission_id": str(mine), "text": "hi"},
        headers=world.other_teacher.headers,
    )
    assert outsider.status_code in (403, 404)
    got = (await client.get(f"/api/submissions/{mine}", headers=world.member.headers)).json()
    assert got["comments"] == []


async def test_turkish(client: httpx.AsyncClient, db: Database, world: World) -> None:
    _, exercises = await lesson_items(db)
    await add_submission(
        db, user_id=world.member.id, exercise_id=exercises[0].id, verdict="wrong_output"
    )
    page = await client.get(drill(world) + "?lang=tr", headers=world.teacher.headers)
    assert "Bu denemeye yorum yaz" in page.text
    assert "Madde madde" in page.text
