"""One comparison view: the rows the server aligns once (app/submissions/diff.py) are what the
student's API, the student's page, the teacher's API and the teacher's drill-down all show, and
the browser script draws them from the API instead of aligning anything itself."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx

from app.config import REPO_ROOT
from app.db import Database
from app.models import Exercise
from app.submissions.diff import aligned_rows
from tests.app.classes.conftest import LESSON, World, add_submission, lesson_items

STDOUT = "1\nwrong\n3\nextra\n"


def cells_of(rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [
        (row["expected"]["number"], row["expected"]["text"], row["actual"]["number"],
         row["actual"]["text"], row["expected"]["differs"] or row["actual"]["differs"])
        for row in rows
    ]  # fmt: skip


def cells_in_page(html: str) -> list[tuple[str, ...]]:
    """The code cells of every side-by-side table in a page, row by row."""
    tables = re.findall(r'<table class="side-by-side">(.*?)</table>', html, re.S)
    assert tables, "no side-by-side table"
    body = tables[0].split("<tbody>", 1)[1]
    return [
        tuple(re.findall(r"<code>(.*?)</code>", row, re.S))
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)
    ]


async def failed_submission(db: Database, world: World) -> tuple[int, Exercise]:
    _, exercises = await lesson_items(db, LESSON)
    exercise = exercises[0]
    submission_id = await add_submission(
        db,
        user_id=world.member.id,
        exercise_id=exercise.id,
        verdict="wrong_output",
        stdout=STDOUT,
    )
    return submission_id, exercise


async def test_every_view_shows_the_same_rows(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    submission_id, exercise = await failed_submission(db, world)
    expected_rows = [row.model_dump() for row in aligned_rows(exercise.expected_output, STDOUT)]
    assert any(row["actual"]["differs"] for row in expected_rows)

    mine = await client.get(f"/api/submissions/{submission_id}", headers=world.member.headers)
    assert mine.status_code == 200
    student_rows = mine.json()["runs"][0]["rows"]
    assert cells_of(student_rows) == cells_of(expected_rows)

    teachers = await client.get(
        f"/api/classes/{world.class_id}/students/{world.member.id}/submissions/{submission_id}",
        headers=world.teacher.headers,
    )
    assert teachers.status_code == 200
    assert teachers.json()["runs"][0]["rows"] == student_rows

    page = await client.get(
        f"/classes/{world.class_id}/students/{world.member.id}/lessons/{LESSON}",
        headers=world.teacher.headers,
    )
    assert page.status_code == 200
    # A gap is an empty cell (no <code>): each row shows the texts of its non-gap sides.
    in_page = [
        tuple(side["text"] for side in (row["expected"], row["actual"]) if side["number"])
        for row in expected_rows
    ]
    assert cells_in_page(page.text) == in_page


async def test_lists_carry_no_rows(client: httpx.AsyncClient, db: Database, world: World) -> None:
    # List items are previews of the outputs: comparing a shortened output would mislead.
    _, exercise = await failed_submission(db, world)
    listed = await client.get(
        f"/api/exercises/{exercise.id}/submissions", headers=world.member.headers
    )
    assert listed.status_code == 200
    assert [run["rows"] for s in listed.json() for run in s["runs"]] == [None]


def test_the_browser_script_aligns_nothing_itself() -> None:
    script = (REPO_ROOT / "frontend" / "feedback.js").read_text()
    assert "compareTable(run.rows)" in script
    assert not re.search(r"\blcs\b|sideBySide|LineMatcher", script), "a second alignment"
    assert Path(REPO_ROOT / "app/lessons/workbench.py").read_text().count("LineMatcher") == 0
