"""The drill-down reads as a summary first (issue 16.5): one row per item (best result,
attempts, time spent, gave up, hints seen), identical resubmissions in a row collapsed into
one "×N" entry, two attempts' code compared with the one diff, and the students before and
after in the roster."""

from __future__ import annotations

import re
from datetime import timedelta

import httpx

from app.db import Database
from app.models import HintOpening, utcnow
from tests.app.classes.conftest import (
    LESSON,
    World,
    add_person,
    add_submission,
    lesson_items,
)

SAME = "x = torch.ones(2)\nprint(x + 1)\n"
FIXED = "x = torch.ones(2)\nprint(x * 2)\n"


def drill(world: World, student_id: int, query: str = "") -> str:
    return f"/classes/{world.class_id}/students/{student_id}/lessons/{LESSON}{query}"


def summary_row(page: str, label: str) -> list[str]:
    """The cells of the summary row headed `label`, as text."""
    table = page.split('class="summary-table"')[1].split("</table>")[0]
    for row in re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.S):
        cells = [
            " ".join(re.sub(r"<[^>]+>", " ", c).split())
            for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)
        ]
        if cells and cells[0] == label:
            return cells
    raise AssertionError(f"no summary row {label!r}")


async def seed(client: httpx.AsyncClient, db: Database, world: World) -> dict:
    """On the first exercise: 4 identical wrong submissions, then the fix 40 minutes after
    the first; a hint opened. On the second: gave up."""
    _, exercises = await lesson_items(db)
    start = utcnow() - timedelta(hours=2)
    ids = [
        await add_submission(
            db,
            user_id=world.member.id,
            exercise_id=exercises[0].id,
            verdict="wrong_output",
            code=SAME,
            at=start + timedelta(minutes=i),
        )
        for i in range(4)
    ]
    fixed = await add_submission(
        db,
        user_id=world.member.id,
        exercise_id=exercises[0].id,
        verdict="passed",
        code=FIXED,
        at=start + timedelta(minutes=40),
    )
    async with db.sessionmaker() as session:
        session.add(
            HintOpening(
                user_id=world.member.id,
                exercise_id=exercises[0].id,
                hint_index=0,
                opened_at=start + timedelta(minutes=10),
            )
        )
        await session.commit()
    gave_up = await client.post(
        f"/api/exercises/{exercises[1].id}/give-up", headers=world.member.headers
    )
    assert gave_up.status_code == 200, gave_up.text
    return {"exercises": exercises, "wrong": ids, "fixed": fixed}


async def test_summary_per_item(client: httpx.AsyncClient, db: Database, world: World) -> None:
    s = await seed(client, db, world)
    page = await client.get(drill(world, world.member.id), headers=world.teacher.headers)
    assert page.status_code == 200, page.text
    first, second = s["exercises"][0], s["exercises"][1]
    assert summary_row(page.text, first.title) == [
        first.title,
        "✓ Passed",
        "5",
        "40 min",
        "no",
        "1",
    ]
    row = summary_row(page.text, second.title)
    assert row[1] == "Not tried" and row[4] == "⚑ yes"
    assert summary_row(page.text, "Question 1")[1:4] == ["Not tried", "0", "—"]
    # The summary comes before the timeline.
    assert page.text.index("summary-table") < page.text.index('class="timeline"')


async def test_identical_resubmissions_collapse(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    s = await seed(client, db, world)
    page = (await client.get(drill(world, world.member.id), headers=world.teacher.headers)).text
    timeline = page.split('class="timeline"')[1]
    assert timeline.count("event submission") == 2  # 4 identical + the fix
    assert "×4" in timeline
    assert "sent 4 times in a row, unchanged" in timeline
    # The filter by verdict still collapses what it shows.
    wrong = (
        await client.get(
            drill(world, world.member.id, "?verdict=wrong_output"), headers=world.teacher.headers
        )
    ).text
    assert wrong.split('class="timeline"')[1].count("event submission") == 1
    assert s["fixed"]


async def test_two_attempts_compared(client: httpx.AsyncClient, db: Database, world: World) -> None:
    s = await seed(client, db, world)
    headers = world.teacher.headers
    page = (await client.get(drill(world, world.member.id), headers=headers)).text
    # Each attempt links to what changed since the one before.
    link = f"?a={s['wrong'][-1]}&amp;b={s['fixed']}#compare-title"
    assert link in page
    # Newest first or oldest first: the older attempt is on the left.
    query = f"?a={s['fixed']}&b={s['wrong'][0]}"
    diff = (await client.get(drill(world, world.member.id, query), headers=headers)).text
    section = diff.split('class="card attempt-diff"')[1].split("</section>")[0]
    title = s["exercises"][0].title
    assert f"{title}, attempt 1 against {title}, attempt 5" in section
    assert "print(x + 1)" in section and "print(x * 2)" in section
    assert section.count('class="differs"') == 1
    # Another student's submission, or nonsense, compares nothing.
    other = await add_submission(
        db, user_id=world.outsider.id, exercise_id=s["exercises"][0].id, verdict="passed"
    )
    for bad in (f"?a={other}&b={s['fixed']}", f"?a={s['fixed']}&b={s['fixed']}"):
        page = (await client.get(drill(world, world.member.id, bad), headers=headers)).text
        assert "attempt-diff" not in page
    refused = await client.get(drill(world, world.member.id, "?a=x"), headers=headers)
    assert refused.status_code == 422


async def test_previous_and_next_student(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    from app.classes import service

    async with db.sessionmaker() as session:
        before = await add_person(session, username="aaa" + world.member.username)
        after = await add_person(session, username="zzz" + world.member.username)
        for person in (before, after):
            await service.join(session=session, student_id=person.id, code=world.join_code)
        await session.commit()
    page = (await client.get(drill(world, world.member.id), headers=world.teacher.headers)).text
    nav = page.split('class="student-nav"')[1].split("</nav>")[0]
    assert f'rel="prev" href="{drill(world, before.id)}"' in nav
    assert f'rel="next" href="{drill(world, after.id)}"' in nav
    assert "Student 2 of 3" in nav
    first = (await client.get(drill(world, before.id), headers=world.teacher.headers)).text
    nav = first.split('class="student-nav"')[1].split("</nav>")[0]
    assert 'rel="prev"' not in nav and 'rel="next"' in nav
