"""Needs attention in a real browser, in English and Turkish (issue 16.2): a student who
failed a question three times and never got it right is listed as stuck on it, with a link
to their drill-down; a student who never did anything while the lesson is overdue is listed
as never active; one who got it right is not listed. axe audits the page, which fits a
phone (390 px) and a laptop (1366 px) without scrolling sideways."""

from __future__ import annotations

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
    no_sideways_scroll,
    unique,
)
from tests.processes import Web, sign_up_student

LESSON = "tensor-basics"
WORDS = {
    "en": {
        "title": "Needs attention",
        "never": "Never active",
        "failed": "3 failed attempts",
        "expand": "One column per item",
        "correct": "Correct answer",
    },
    "tr": {
        "title": "İlgi bekleyenler",
        "never": "Hiç etkin olmayan",
        "failed": "3 başarısız",
        "expand": "Her öğeye bir sütun",
        "correct": "Doğru cevap",
    },
}


def class_with_trouble(server: Web, teacher: str) -> tuple[int, dict[str, str]]:
    """(class id, {"stuck", "idle", "fine": username}); the lesson was due yesterday."""
    with httpx.Client(base_url=server.url, timeout=30) as client:
        due = (utcnow() - timedelta(days=1)).isoformat()
        class_id, code = class_with_lesson(client, teacher, LESSON, name="Stuck ", due_at=due)
        names: dict[str, str] = {}
        for role in ("stuck", "idle", "fine"):
            student = sign_up_student(client)
            names[role] = join_class(client, code, student)["username"]
            if role == "idle":
                continue
            lesson = client.get(f"/api/lessons/{LESSON}", headers=student).json()
            question = next(q for q in lesson["questions"] if q["kind"] == "predict_output")
            # "fine" failed once and is active today: neither stuck nor idle.
            for _ in range(3 if role == "stuck" else 1):
                sent = client.post(
                    f"/api/questions/{question['id']}/answers",
                    json={"answer": "definitely-wrong"},
                    headers=student,
                )
                assert sent.status_code == 200, sent.text
                assert sent.json()["correct"] is False
    return class_id, names


@pytest.mark.parametrize("lang", ["en", "tr"])
def test_needs_attention_names_who_is_stuck_and_on_what(
    lang: str, server: Web, visitor_factory: VisitorFactory
) -> None:
    teacher = unique("teach")
    create_teacher(server, teacher)
    class_id, names = class_with_trouble(server, teacher)
    words = WORDS[lang]
    v = visitor_factory(lang)
    log_in(v, teacher)
    v.page.set_viewport_size({"width": 1366, "height": 900})
    page = v.go(f"/classes/{class_id}/progress")
    page.get_by_role("link", name=words["title"]).click()
    page.wait_for_url(f"**/classes/{class_id}/attention")
    v.expect_language()
    cards = page.locator("li.attention-student")
    assert cards.count() == 2
    stuck = cards.filter(has_text=names["stuck"])
    assert words["failed"] in stuck.inner_text()
    idle = cards.filter(has_text=names["idle"])
    assert words["never"] in idle.inner_text()
    assert page.locator("main").get_by_text(names["fine"]).count() == 0
    # The overdue, never-active student comes first.
    assert names["idle"] in cards.first.inner_text()
    no_sideways_scroll(page)
    v.audit("attention")
    v.shot("attention-1366")
    v.page.set_viewport_size({"width": 390, "height": 844})
    no_sideways_scroll(page)
    v.shot("attention-390")

    # A stricter threshold: the stuck student is no longer listed.
    page.fill("#t-failed", "4")
    page.locator("form.attention-thresholds button[type=submit]").click()
    page.wait_for_url("**failed_attempts=4**")
    assert page.locator("li.attention-student").count() == 1

    # The item links to the student's work.
    page = v.go(f"/classes/{class_id}/attention")
    page.locator("li.attention-student", has_text=names["stuck"]).locator(
        "li.stuck a"
    ).first.click()
    page.wait_for_url(f"**/classes/{class_id}/students/*/lessons/{LESSON}")
    assert names["stuck"] in page.locator("main").inner_text()


@pytest.mark.parametrize("lang", ["en", "tr"])
def test_a_grid_lesson_opens_one_column_per_item(
    lang: str, server: Web, visitor_factory: VisitorFactory
) -> None:
    teacher = unique("teach")
    create_teacher(server, teacher)
    class_id, names = class_with_trouble(server, teacher)
    v = visitor_factory(lang)
    log_in(v, teacher)
    for width, height in ((1366, 900), (390, 844)):
        v.page.set_viewport_size({"width": width, "height": height})
        page = v.go(f"/classes/{class_id}/progress")
        page.get_by_role("link", name=WORDS[lang]["expand"]).first.click()
        page.wait_for_url(f"**expand={LESSON}**")
        assert page.locator("th.item-col").count() >= 2
        name = page.locator(f"th:text-is('{names['stuck']}')")
        row = page.locator("table.grid tbody tr", has=name)
        assert row.locator("td.item-wrong").count() >= 1
        no_sideways_scroll(page)
        v.audit(f"grid-expanded-{width}")
        v.shot(f"grid-expanded-{width}")


@pytest.mark.parametrize("lang", ["en", "tr"])
def test_insight_names_the_students_behind_a_wrong_answer(
    lang: str, server: Web, visitor_factory: VisitorFactory
) -> None:
    teacher = unique("teach")
    create_teacher(server, teacher)
    class_id, names = class_with_trouble(server, teacher)
    v = visitor_factory(lang)
    log_in(v, teacher)
    for width, height in ((1366, 900), (390, 844)):
        v.page.set_viewport_size({"width": width, "height": height})
        page = v.go(f"/classes/{class_id}/insight?lesson={LESSON}")
        assert page.locator(".correct-answer").count() >= 1
        assert WORDS[lang]["correct"] in page.locator(".correct-answer").first.text_content()
        group = page.locator(".group-students").first
        assert names["stuck"] in group.inner_text() and names["fine"] in group.inner_text()
        no_sideways_scroll(page)
        v.audit(f"insight-{width}")
        v.shot(f"insight-{width}")
    page.locator(".group-students").first.get_by_role("link").first.click()
    page.wait_for_url(f"**/classes/{class_id}/progress?**student=**")
    assert page.locator("table.grid tbody tr").count() == 2
