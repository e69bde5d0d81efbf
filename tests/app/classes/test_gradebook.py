"""The gradebook export (issue 16.8): one row per student, per lesson and per item the
score, completion time and late flag, totals, the class name in the file name, and an Excel
dialect (BOM, the locale's separator, dates Excel reads) with state names in the page's
language."""

from __future__ import annotations

import csv
import io
from datetime import datetime, timedelta
from urllib.parse import unquote

import httpx

from app.db import Database
from tests.app.classes.conftest import LESSON, World, lesson_items
from tests.app.classes.test_due_states import seed


async def fetch(client: httpx.AsyncClient, world: World, query: str = "") -> httpx.Response:
    response = await client.get(
        f"/api/classes/{world.class_id}/gradebook.csv{query}", headers=world.teacher.headers
    )
    assert response.status_code == 200, response.text
    return response


def table(text: str, delimiter: str = ",") -> tuple[list[str], dict[str, dict[str, str]]]:
    rows = list(csv.reader(io.StringIO(text), delimiter=delimiter))
    header, body = rows[0], rows[1:]
    by_user = {row[1]: dict(zip(header, row, strict=True)) for row in body}
    return header, by_user


async def test_one_row_per_student_with_lessons_items_and_totals(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    s = await seed(db, world)
    response = await fetch(client, world)
    assert response.headers["content-type"].startswith("text/csv")
    assert not response.text.startswith("\ufeff")
    header, rows = table(response.text)
    assert len(rows) == len(s.people)
    questions, exercises = await lesson_items(db)
    lesson = next(h for h in header if h.endswith(": state")).removesuffix(": state")
    on_time, late = rows[s.people["on_time"].username], rows[s.people["late"].username]
    never = rows[s.people["never"].username]
    assert on_time[f"{lesson}: state"] == "Done on time"
    assert on_time[f"{lesson}: score %"] == "100"
    assert on_time[f"{lesson}: late"] == "no"
    assert late[f"{lesson}: state"] == "Done late"
    assert late[f"{lesson}: late"] == "yes"
    completed = datetime.fromisoformat(late[f"{lesson}: completed"])
    assert completed == s.due + timedelta(hours=30)
    assert never[f"{lesson}: state"] == "Not started, overdue"
    # Per item: the last exercise was passed late by "late", on time by "on_time".
    last = f"{lesson} › {exercises[-1].title}"
    assert late[f"{last}: late"] == "yes" and on_time[f"{last}: late"] == "no"
    assert late[f"{last}: score %"] == "100"  # late work counts, no penalty by default
    assert datetime.fromisoformat(late[f"{last}: completed"]) == s.due + timedelta(hours=30)
    assert never[f"{lesson} › Question 1: score %"] == "0"
    assert never[f"{lesson} › Question 1: completed"] == ""
    assert len(questions) >= 1
    # Totals: lessons done and late.
    assert on_time["Lessons done"] == "1" and late["Lessons late"] == "1"
    assert never["Lessons done"] == "0"


async def test_late_penalty_counts_per_item(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    s = await seed(db, world)
    put = await client.put(
        f"/api/classes/{world.class_id}/assignments/{LESSON}",
        json={"due_at": s.due.isoformat(), "late_penalty_percent": 50},
        headers=world.teacher.headers,
    )
    assert put.status_code == 200, put.text
    _, exercises = await lesson_items(db)
    header, rows = table((await fetch(client, world)).text)
    lesson = next(h for h in header if h.endswith(": state")).removesuffix(": state")
    item = f"{lesson} › {exercises[-1].title}: score %"
    assert rows[s.people["late"].username][item] == "50"


async def test_excel_dialect_in_turkish_and_the_file_name(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    s = await seed(db, world)
    renamed = await client.patch(
        f"/api/classes/{world.class_id}",
        json={"name": 'Şükrü\'s 10/A "PyTorch"'},
        headers=world.teacher.headers,
    )
    assert renamed.status_code == 200, renamed.text
    # A late penalty of 25 %: the late student's total is not a whole number.
    put = await client.put(
        f"/api/classes/{world.class_id}/assignments/{LESSON}",
        json={"due_at": s.due.isoformat(), "late_penalty_percent": 25},
        headers=world.teacher.headers,
    )
    assert put.status_code == 200, put.text
    response = await fetch(client, world, "?format=excel&lang=tr")
    raw = response.content
    assert raw.startswith("\ufeff".encode())
    text = raw.decode("utf-8-sig")
    header, rows = table(text, ";")
    late = rows[s.people["late"].username]
    lesson = next(h for h in header if h.endswith(": durum")).removesuffix(": durum")
    assert late[f"{lesson}: durum"] == "Geç tamamlandı"
    assert late[f"{lesson}: gecikti"] == "evet"
    completed = late[f"{lesson}: tamamlandı"]
    assert completed == (s.due + timedelta(hours=30)).strftime("%Y-%m-%d %H:%M:%S")
    # A decimal comma in Turkish where the plain CSV has a decimal point.
    plain = table((await fetch(client, world, "?lang=en")).text)[1][s.people["late"].username]
    assert "." in plain["Total score %"], plain["Total score %"]
    assert late["Toplam puan %"] == plain["Total score %"].replace(".", ",")
    disposition = response.headers["content-disposition"]
    assert disposition.startswith('attachment; filename="')
    fallback = disposition.split('filename="')[1].split('"')[0]
    assert fallback.isascii() and "/" not in fallback and fallback.endswith("gradebook.csv")
    encoded = disposition.split("filename*=UTF-8''")[1]
    name = unquote(encoded)
    assert name.startswith("Şükrü's 10-A -PyTorch") and name.endswith("-gradebook.csv")
    assert "/" not in name and '"' not in name


async def test_only_the_classes_teacher(client: httpx.AsyncClient, world: World) -> None:
    url = f"/api/classes/{world.class_id}/gradebook.csv"
    other = await client.get(url, headers=world.other_teacher.headers)
    assert other.status_code == 404
    bad = await client.get(url + "?format=xlsx", headers=world.teacher.headers)
    assert bad.status_code == 422
    assert "format" in bad.text
