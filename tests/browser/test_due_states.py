"""Due dates in a real browser, in English and Turkish (issue 16.1, issue 13): the progress
grid tells "in progress, overdue" from "not started, overdue" in words and symbols, its
"never active" filter keeps only students who tried nothing, and the teacher gives one
student an extension from the drill-down page (a plain form), after which the grid marks
that student's cell "extended to" and no longer overdue. axe audits every page."""

from __future__ import annotations

import re
from datetime import timedelta

import httpx
import pytest

from app.models import utcnow
from tests.browser.conftest import (
    VisitorFactory,
    class_with_lesson,
    create_teacher,
    join_class,
    log_in,
    unique,
)
from tests.processes import Web, sign_up_student

LESSON = "tensor-basics"
WORDS = {
    "en": {
        "overdue_in_progress": "In progress, overdue",
        "overdue_not_started": "Not started, overdue",
        "not_started": "Not started",
        "extended": "extended to",
        "saved": "due date is now",
    },
    "tr": {
        "overdue_in_progress": "Devam ediyor, gecikmiş",
        "overdue_not_started": "Başlanmadı, gecikmiş",
        "not_started": "Başlanmadı",
        "extended": "uzatıldı:",
        "saved": "teslim tarihi artık",
    },
}


def class_with_overdue_lesson(server: Web, teacher: str) -> tuple[int, str, str]:
    """A class whose lesson was due yesterday: one student who tried a question, one who
    did nothing. (class id, the active student's name, the never-active student's name)."""
    with httpx.Client(base_url=server.url, timeout=30) as client:
        due = (utcnow() - timedelta(days=1)).isoformat()
        class_id, code = class_with_lesson(client, teacher, LESSON, name="Late ", due_at=due)
        names = []
        for tries in (True, False):
            student = sign_up_student(client)
            names.append(join_class(client, code, student)["username"])
            if tries:
                lesson = client.get(f"/api/lessons/{LESSON}", headers=student).json()
                question = next(q for q in lesson["questions"] if q["kind"] == "multiple_choice")
                answer = [0] if question["multiple"] else 0
                sent = client.post(
                    f"/api/questions/{question['id']}/answers",
                    json={"answer": answer},
                    headers=student,
                )
                assert sent.status_code == 200, sent.text
    return class_id, names[0], names[1]


def row(page, name: str):  # type: ignore[no-untyped-def]
    return page.locator("table.grid tbody tr", has=page.locator(f"th:text-is('{name}')"))


@pytest.mark.parametrize("lang", ["en", "tr"])
def test_grid_states_filter_and_extension(
    visitor_factory: VisitorFactory, server: Web, lang: str
) -> None:
    words = WORDS[lang]
    teacher_name = unique("teach")
    create_teacher(server, teacher_name)
    class_id, active, never = class_with_overdue_lesson(server, teacher_name)

    teacher = visitor_factory(lang)
    log_in(teacher, teacher_name)
    page = teacher.go(f"/classes/{class_id}/progress")
    teacher.expect_language()
    active_cell = row(page, active).locator("td.c")
    never_cell = row(page, never).locator("td.c")
    assert "s-overdue_in_progress" in (active_cell.get_attribute("class") or "")
    assert "s-overdue_not_started" in (never_cell.get_attribute("class") or "")
    # In words (for a screen reader in the cell, on screen in the legend) and symbols.
    assert words["overdue_in_progress"] in active_cell.inner_text()
    assert "◐!" in active_cell.inner_text() and "○!" in never_cell.inner_text()
    legend = page.locator(".legend").inner_text()
    assert words["overdue_in_progress"] in legend and words["overdue_not_started"] in legend
    assert re.search(r"\d+\s*(d|h|gün|sa)", active_cell.inner_text())  # how late
    teacher.audit("grid-overdue")

    # "Never active": only the student who tried nothing.
    page.locator("details.filters > summary").click()
    page.select_option("#f-state", "never_active")
    page.locator("form.grid-filters button[type=submit]").click()
    page.wait_for_url(re.compile(r"state=never_active"))
    assert row(page, never).count() == 1 and row(page, active).count() == 0
    teacher.audit("grid-never-active")

    # An extension for the never-active student, from their drill-down.
    row(page, never).locator("td.c a").click()
    page.wait_for_url(re.compile(rf"/students/\d+/lessons/{LESSON}$"))
    teacher.audit("drill-down")
    later = (utcnow() + timedelta(days=10)).strftime("%Y-%m-%d")
    page.fill("#extension-date", later)
    page.locator("section.extension form button[type=submit]").first.click()
    page.wait_for_url(re.compile(rf"/lessons/{LESSON}$"))
    assert words["saved"] in page.locator("main .alert").inner_text()
    teacher.audit("drill-down-extended")

    page = teacher.go(f"/classes/{class_id}/progress")
    never_cell = row(page, never).locator("td.c")
    assert "s-not_started" in (never_cell.get_attribute("class") or "")
    assert words["extended"] in never_cell.inner_text()
    # The other student keeps the class's due date.
    assert "s-overdue_in_progress" in (
        row(page, active).locator("td.c").get_attribute("class") or ""
    )
    teacher.audit("grid-extended")
    assert not teacher.errors  # type: ignore[attr-defined]
