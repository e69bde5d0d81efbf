"""Hints on wrong-output clusters (issue 13): the insight groups wrong outputs on their
normalised text, the teacher writes a hint on a group once (API or insight form), and every
graded submission of a student of that class whose output falls in the group carries it
(the submission API and the lesson page); students of other classes never see it."""

from __future__ import annotations

import httpx

from app.classes.clusters import cluster_of, normalised_output
from app.db import Database
from tests.app.classes.conftest import (
    LESSON,
    World,
    add_submission,
    join_new_students,
    lesson_items,
)

WRONG = "tensor([1, 2])\nshape: 2\n"
# The same output as a reader sees it: trailing spaces, Windows line ends, blank lines.
SAME_WRONG = "tensor([1, 2])  \r\nshape: 2\t\r\n\n\n"
OTHER_WRONG = "tensor([2, 1])\nshape: 2\n"
HINT = "Read the prompt again: the order of the elements matters.\nTry torch.flip."


def hint_path(world: World, exercise_id: str, cluster: str) -> str:
    return f"/api/classes/{world.class_id}/exercises/{exercise_id}/output-hints/{cluster}"


def test_one_normalising_function() -> None:
    assert normalised_output(SAME_WRONG) == "tensor([1, 2])\nshape: 2"
    assert normalised_output("a \r\nb\t\rc\n\n") == "a\nb\nc"
    assert cluster_of(WRONG) == cluster_of(SAME_WRONG) == cluster_of("tensor([1, 2])\nshape: 2")
    assert cluster_of(WRONG) != cluster_of(OTHER_WRONG)
    # Leading spaces and blank lines inside the output are what the student printed.
    assert cluster_of(" tensor([1, 2])") != cluster_of(WRONG)
    assert cluster_of("a\n\nb") != cluster_of("a\nb")


async def insight_wrong(client: httpx.AsyncClient, world: World, exercise_id: str) -> list[dict]:
    response = await client.get(
        f"/api/classes/{world.class_id}/insight",
        params={"lesson": LESSON},
        headers=world.teacher.headers,
    )
    assert response.status_code == 200, response.text
    item = next(i for i in response.json()["items"] if i["id"] == exercise_id)
    return item["wrong"]


async def test_trivial_differences_do_not_split_a_cluster(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    (other,) = await join_new_students(client, db, world, 1)
    _, exercises = await lesson_items(db)
    e = exercises[0].id
    await add_submission(
        db, user_id=world.member.id, exercise_id=e, verdict="wrong_output", stdout=WRONG
    )
    await add_submission(
        db, user_id=other.id, exercise_id=e, verdict="wrong_output", stdout=SAME_WRONG
    )
    await add_submission(
        db, user_id=other.id, exercise_id=e, verdict="wrong_output", stdout=OTHER_WRONG
    )
    wrong = await insight_wrong(client, world, e)
    assert [(g["label"], g["students"]) for g in wrong] == [
        ("tensor([1, 2])\nshape: 2", 2),
        ("tensor([2, 1])\nshape: 2", 1),
    ]
    assert wrong[0]["cluster"] == cluster_of(WRONG)
    assert wrong[0]["student_ids"] == sorted([world.member.id, other.id])
    assert all(g["hint"] is None for g in wrong)


async def test_a_hint_reaches_the_class_and_no_one_else(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    _, exercises = await lesson_items(db)
    e = exercises[0].id
    before = await add_submission(
        db, user_id=world.member.id, exercise_id=e, verdict="wrong_output", stdout=WRONG
    )
    cluster = (await insight_wrong(client, world, e))[0]["cluster"]

    saved = await client.put(
        hint_path(world, e, cluster), json={"text": f"  {HINT}  "}, headers=world.teacher.headers
    )
    assert saved.status_code == 200, saved.text
    body = saved.json()
    assert body["text"] == HINT and body["cluster"] == cluster and body["exercise_id"] == e
    assert body["teacher"] == world.teacher.username
    assert body["sample_output"] == "tensor([1, 2])\nshape: 2"
    group = (await insight_wrong(client, world, e))[0]
    assert group["hint"]["text"] == HINT

    # Later submissions in the same cluster (trivially different output) carry it, as does
    # the one before; another output, a pass and another class's student do not.
    later = await add_submission(
        db, user_id=world.member.id, exercise_id=e, verdict="wrong_output", stdout=SAME_WRONG
    )
    other_output = await add_submission(
        db, user_id=world.member.id, exercise_id=e, verdict="wrong_output", stdout=OTHER_WRONG
    )
    passed = await add_submission(db, user_id=world.member.id, exercise_id=e, verdict="passed")
    outsider = await add_submission(
        db, user_id=world.outsider.id, exercise_id=e, verdict="wrong_output", stdout=WRONG
    )

    async def hints(submission_id: int, headers: dict[str, str]) -> list[str]:
        got = await client.get(f"/api/submissions/{submission_id}", headers=headers)
        assert got.status_code == 200, got.text
        return [h["text"] for h in got.json()["output_hints"]]

    mine = world.member.headers
    assert await hints(later, mine) == [HINT]
    assert await hints(before, mine) == [HINT]
    assert await hints(other_output, mine) == []
    assert await hints(passed, mine) == []
    assert await hints(outsider, world.outsider.headers) == []
    listed = (await client.get(f"/api/exercises/{e}/submissions", headers=mine)).json()
    assert {s["id"]: len(s["output_hints"]) for s in listed} == {
        before: 1,
        later: 1,
        other_output: 0,
        passed: 0,
    }
    one = (await client.get(f"/api/submissions/{later}", headers=mine)).json()
    assert one["output_hints"][0]["teacher"] == world.teacher.username

    # The lesson page: beside that attempt.
    page = (await client.get(f"/lessons/{LESSON}", headers=mine)).text
    attempt = page.split(f'data-submission="{later}"')[1].split("</li>")[0]
    assert "Read the prompt again" in attempt and "on this output" in attempt
    assert (
        "Read the prompt again"
        not in page.split(f'data-submission="{passed}"')[1].split("</li>")[0]
    )

    # Edit, list, delete.
    edited = await client.put(
        hint_path(world, e, cluster), json={"text": "Flip it."}, headers=world.teacher.headers
    )
    assert edited.status_code == 200 and edited.json()["id"] == body["id"]
    assert await hints(later, mine) == ["Flip it."]
    listing = await client.get(
        f"/api/classes/{world.class_id}/output-hints", headers=world.teacher.headers
    )
    assert [h["text"] for h in listing.json()] == ["Flip it."]
    gone = await client.delete(hint_path(world, e, cluster), headers=world.teacher.headers)
    assert gone.status_code == 204
    assert await hints(later, mine) == []
    again = await client.delete(hint_path(world, e, cluster), headers=world.teacher.headers)
    assert again.status_code == 404


async def test_a_removed_student_no_longer_sees_the_hint(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    _, exercises = await lesson_items(db)
    e = exercises[0].id
    mine = await add_submission(
        db, user_id=world.member.id, exercise_id=e, verdict="wrong_output", stdout=WRONG
    )
    put = await client.put(
        hint_path(world, e, cluster_of(WRONG)), json={"text": HINT}, headers=world.teacher.headers
    )
    assert put.status_code == 200
    removed = await client.delete(
        f"/api/classes/{world.class_id}/students/{world.member.id}", headers=world.teacher.headers
    )
    assert removed.status_code in (200, 204), removed.text
    got = (await client.get(f"/api/submissions/{mine}", headers=world.member.headers)).json()
    assert got["output_hints"] == []


async def test_who_may_write_hints_and_what(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    _, exercises = await lesson_items(db)
    e = exercises[0].id
    path = hint_path(world, e, cluster_of(WRONG))
    ok = {"text": HINT}
    assert (await client.put(path, json=ok)).status_code == 401
    assert (await client.put(path, json=ok, headers=world.member.headers)).status_code == 403
    other = await client.put(path, json=ok, headers=world.other_teacher.headers)
    assert other.status_code == 404
    teacher = world.teacher.headers
    for bad in ({"text": "   "}, {"text": "x" * 2001}, {}, {"text": HINT, "extra": 1}):
        refused = await client.put(path, json=bad, headers=teacher)
        assert refused.status_code == 422, (bad, refused.text)
    not_a_cluster = hint_path(world, e, "abc")
    assert (await client.put(not_a_cluster, json=ok, headers=teacher)).status_code == 422
    unknown = hint_path(world, "no-such-exercise", cluster_of(WRONG))
    assert (await client.put(unknown, json=ok, headers=teacher)).status_code == 404
    listing = await client.get(f"/api/classes/{world.class_id}/output-hints", headers=teacher)
    assert listing.json() == []


async def test_the_insight_form_writes_edits_and_deletes(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    _, exercises = await lesson_items(db)
    e = exercises[0].id
    await add_submission(
        db, user_id=world.member.id, exercise_id=e, verdict="wrong_output", stdout=WRONG
    )
    cluster = cluster_of(WRONG)
    insight = f"/classes/{world.class_id}/insight?lesson={LESSON}"
    teacher = world.teacher.headers
    page = (await client.get(insight, headers=teacher)).text
    assert f'id="hint-{cluster}"' in page and "Write a hint for this output" in page
    csrf = page.split('name="csrf_token" value="')[1].split('"')[0]
    form = {"csrf_token": csrf, "exercise_id": e, "cluster": cluster, "lesson": LESSON}

    # Refused: the reason, and what was typed kept.
    empty = await client.post(
        f"/classes/{world.class_id}/insight/hints", data={**form, "text": "  "}, headers=teacher
    )
    assert empty.status_code == 422
    assert "Hint: write something for the students to read." in empty.text
    long = "y" * 2001
    too_long = await client.post(
        f"/classes/{world.class_id}/insight/hints", data={**form, "text": long}, headers=teacher
    )
    assert too_long.status_code == 422 and long in too_long.text
    assert "at most 2000 characters" in too_long.text

    saved = await client.post(
        f"/classes/{world.class_id}/insight/hints", data={**form, "text": HINT}, headers=teacher
    )
    assert saved.status_code == 303, saved.text
    assert saved.headers["location"].endswith(f"#hint-{cluster}")
    page = (await client.get(insight, headers=teacher)).text
    assert "Hint saved" in page
    box = page.split(f'id="hint-{cluster}"')[1].split("</details>")[0]
    assert "Read the prompt again" in box and "Edit the hint" in box

    deleted = await client.post(
        f"/classes/{world.class_id}/insight/hints/delete", data=form, headers=teacher
    )
    assert deleted.status_code == 303
    page = (await client.get(insight, headers=teacher)).text
    assert "Hint deleted." in page and "Read the prompt again" not in page
    # Another teacher's form on this class: not theirs.
    refused = await client.post(
        f"/classes/{world.class_id}/insight/hints",
        data={**form, "text": HINT},
        headers=world.other_teacher.headers,
    )
    assert refused.status_code == 404
