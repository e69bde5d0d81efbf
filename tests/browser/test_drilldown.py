"""The drill-down in a real browser, in English and Turkish (issue 16.5): a student sends
the same wrong code three times; their teacher's drill-down opens with the item-by-item
summary, shows the three as one "×3" entry, moves to the next student, and saves a comment
on that attempt with a plain form; the student then sees the comment beside that attempt on
the lesson page. The drill-down fits a phone without scrolling sideways. axe audits every
page."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from tests.browser.conftest import (
    PASSWORD,
    VisitorFactory,
    bearer,
    class_with_lesson,
    create_teacher,
    join_class,
    log_in,
    no_sideways_scroll,
    unique,
)
from tests.processes import Web

LESSON = "tensor-basics"
WRONG = "print('not the answer')\n"
COMMENT = "Read the expected output again: it prints a tensor, not a sentence."
WORDS = {
    "en": {
        "summary": "Item by item",
        "repeats": "sent 3 times in a row, unchanged",
        "saved": "Comment saved",
        "commented": "Your teacher commented",
        "next": "Next student",
    },
    "tr": {
        "summary": "Madde madde",
        "repeats": "art arda 3 kez değiştirilmeden gönderildi",
        "saved": "Yorum kaydedildi",
        "commented": "Öğretmeniniz yorum yaptı",
        "next": "Sonraki öğrenci",
    },
}


def sign_up_api(client: httpx.Client, username: str) -> dict[str, str]:
    made = client.post("/api/auth/register", json={"username": username, "password": PASSWORD})
    assert made.status_code in (200, 201), made.text
    return bearer(client, username)


def graded(client: httpx.Client, headers: dict[str, str], exercise: str, code: str) -> int:
    sent = client.post(
        f"/api/exercises/{exercise}/submissions", json={"code": code}, headers=headers
    )
    assert sent.status_code in (200, 201, 202), sent.text
    submission = sent.json()
    for _ in range(30):
        if submission["status"] not in ("queued", "running"):
            return int(submission["id"])
        submission = client.get(
            f"/api/submissions/{submission['id']}?wait=10", headers=headers
        ).json()
    raise AssertionError(f"no verdict: {submission}")


def a_class_with_repeats(server: Web, teacher: str) -> dict[str, Any]:
    """A class with LESSON assigned and two students; the first ("a…", first in the roster)
    sent the same wrong code three times."""
    with httpx.Client(base_url=server.url, timeout=60) as client:
        class_id, code = class_with_lesson(client, teacher, LESSON, name="Drill ", due_at=None)
        names = [unique("a"), unique("z")]
        students = []
        for name in names:
            student = sign_up_api(client, name)
            me = join_class(client, code, student)
            students.append({"name": name, "id": me["id"], "headers": student})
        lesson = client.get(f"/api/lessons/{LESSON}", headers=students[0]["headers"]).json()
        exercise = lesson["exercises"][0]["id"]
        ids = [graded(client, students[0]["headers"], exercise, WRONG) for _ in range(3)]
    return {"class_id": class_id, "students": students, "exercise": exercise, "ids": ids}


@pytest.mark.parametrize("lang", ["en", "tr"])
def test_summary_collapsed_repeats_and_a_comment_the_student_sees(
    visitor_factory: VisitorFactory, server: Web, lang: str
) -> None:
    words = WORDS[lang]
    teacher_name = unique("teach")
    create_teacher(server, teacher_name)
    world = a_class_with_repeats(server, teacher_name)
    first, second = world["students"]
    drill = f"/classes/{world['class_id']}/students/{first['id']}/lessons/{LESSON}"

    teacher = visitor_factory(lang)
    log_in(teacher, teacher_name)
    page = teacher.go(drill)
    teacher.expect_language()
    # The summary comes first: the exercise's row says 3 attempts, not passed.
    summary = page.locator("section.item-summary")
    assert words["summary"] in summary.locator("h2").inner_text()
    # The first exercise's row (exercises link to their part of the timeline).
    row = page.locator("table.summary-table tbody tr").filter(has=page.locator("th a")).first
    assert row.locator("td").nth(1).inner_text() == "3"
    assert "✗" in row.locator("td").first.inner_text()
    summary_top = summary.bounding_box()["y"]
    assert summary_top < page.locator("ol.timeline").bounding_box()["y"]
    # Three identical submissions: one entry.
    submissions = page.locator("ol.timeline li.event.submission")
    assert submissions.count() == 1
    assert "×3" in submissions.first.inner_text()
    assert words["repeats"] in submissions.first.inner_text()
    teacher.audit("drill-down-summary")

    # A phone: the page does not scroll sideways (the summary scrolls in its own box).
    page.set_viewport_size({"width": 390, "height": 844})
    no_sideways_scroll(page)
    page.set_viewport_size({"width": 1366, "height": 900})

    # The next student in the roster, on the same lesson.
    page.locator("nav.student-nav a[rel=next]").click()
    page.wait_for_url(re.compile(rf"/students/{second['id']}/lessons/{LESSON}$"))
    assert words["next"] not in page.locator("nav.student-nav").inner_text()
    page.go_back()
    page.wait_for_url(re.compile(rf"/students/{first['id']}/lessons/{LESSON}$"))

    # A comment on that attempt, with the plain form.
    entry = page.locator(f"#submission-{world['ids'][0]}")
    entry.locator("details.comment-box > summary").click()
    entry.locator("textarea").fill(COMMENT)
    teacher.audit("drill-down-comment-form")
    entry.locator("details.comment-box button[type=submit]").click()
    page.wait_for_url(re.compile(rf"/lessons/{LESSON}#submission-{world['ids'][0]}$"))
    assert words["saved"] in page.locator("main .alert").first.inner_text()
    assert COMMENT in page.locator(f"#submission-{world['ids'][0]} .teacher-comment").inner_text()
    teacher.audit("drill-down-commented")

    # The student sees it beside that attempt.
    student = visitor_factory(lang)
    log_in(student, first["name"])
    page = student.go(f"/lessons/{LESSON}")
    attempt = page.locator(f'details.submission[data-submission="{world["ids"][0]}"]')
    # text_content: the tag is upper-cased by CSS only.
    assert words["commented"] in (attempt.locator("summary").first.text_content() or "")
    if attempt.get_attribute("open") is None:
        attempt.locator("summary").first.click()
    comment = attempt.locator(".teacher-comment")
    comment.wait_for()
    assert comment.is_visible() and COMMENT in comment.inner_text()
    assert teacher_name in (comment.text_content() or "")  # its label is upper-cased by CSS
    others = page.locator(
        f'details.submission[data-submission="{world["ids"][2]}"] .teacher-comment'
    )
    assert others.count() == 0
    student.audit("lesson-with-comment")

    # Sending again redraws the history from the API without a reload: the comment stays.
    exercise = page.locator(f"article.exercise[data-exercise='{world['exercise']}']")
    exercise.locator("button.submit").click()
    exercise.locator(".live.live-grade .verdict-line").wait_for(timeout=60_000)
    page.locator(f'details.submission[data-submission="{world["ids"][2] + 1}"]').wait_for()
    redrawn = page.locator(f'details.submission[data-submission="{world["ids"][0]}"]')
    assert words["commented"] in (redrawn.locator("summary").first.text_content() or "")
    assert COMMENT in (redrawn.locator(".teacher-comment").text_content() or "")
    assert not teacher.errors and not student.errors  # type: ignore[attr-defined]
