"""The grid's density (issue 16.7): compact shows every student on one page with one-line
cells, remembered in a cookie; the header says how many rows this page shows, of how many."""

from __future__ import annotations

import re

import httpx
import pytest

from app.classes import report_pages
from app.classes.reports import density
from app.db import Database
from tests.app.classes.conftest import World, join_new_students


def rows(html: str) -> int:
    return html.count('<th scope="row" class="who"')


async def test_compact_shows_everyone_and_is_remembered(
    client: httpx.AsyncClient, db: Database, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    await join_new_students(client, db, world, 4)  # five students in all
    monkeypatch.setattr(report_pages, "PER_PAGE", 2)
    url = f"/classes/{world.class_id}/progress"
    headers = world.teacher.headers

    comfortable = await client.get(url, headers=headers)
    assert rows(comfortable.text) == 2
    # True while paged: this page's rows, of the class (it said "5 of 5" before).
    assert "Showing 2 of 5 students (5 match, page 1 of 3)" in comfortable.text
    assert 'table class="grid"' in comfortable.text
    assert density.COOKIE not in comfortable.headers.get("set-cookie", "")

    compact = await client.get(url, params={"density": "compact"}, headers=headers)
    assert rows(compact.text) == 5
    assert "Showing 5 of 5 students" in compact.text and "Page 1 of" not in compact.text
    assert 'table class="grid compact"' in compact.text
    assert f"{density.COOKIE}=compact" in compact.headers["set-cookie"]
    assert "Path=/classes" in compact.headers["set-cookie"]
    # One line a cell: no line break inside the cells; their details in a tooltip.
    cells = re.findall(r'<td class="c s-[a-z_]+">.*?</td>', compact.text)
    assert cells and all("<br>" not in cell for cell in cells)
    assert all('title="' in cell for cell in cells)

    client.cookies.set(density.COOKIE, "compact")
    again = await client.get(url, headers=headers)
    assert rows(again.text) == 5 and 'table class="grid compact"' in again.text
    assert "set-cookie" not in again.headers or density.COOKIE not in again.headers["set-cookie"]

    back = await client.get(url, params={"density": "comfortable"}, headers=headers)
    assert rows(back.text) == 2
    assert f"{density.COOKIE}=comfortable" in back.headers["set-cookie"]

    # Filtered: the count says how many match.
    client.cookies.set(density.COOKIE, "nonsense")
    filtered = await client.get(url, params={"q": world.member.username}, headers=headers)
    assert "Showing 1 of 5 students (1 matches)" in filtered.text


def test_the_density_asked_wins_over_the_remembered_one() -> None:
    assert density.chosen("", None) == "comfortable"
    assert density.chosen("", "compact") == "compact"
    assert density.chosen("comfortable", "compact") == "comfortable"
    assert density.chosen("huge", "nonsense") == "comfortable"
