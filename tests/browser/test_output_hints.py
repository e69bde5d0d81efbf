"""Hints on wrong-output clusters in a real browser, in English and Turkish (issue 13): a
student's wrong output shows up as a group on the insight page; the teacher writes a hint on
it there with a plain form; another student of the class then sends code whose output
differs only in trailing spaces, and sees the hint beside the diff as soon as the verdict
comes (and in their history); a student of another class with the same output does not.
axe audits every page; the insight page with its hint fits a phone."""

from __future__ import annotations

import re

import httpx
import pytest

from tests.browser.conftest import (
    VisitorFactory,
    class_with_lesson,
    create_teacher,
    join_class,
    log_in,
    no_sideways_scroll,
    unique,
)
from tests.browser.test_drilldown import graded, sign_up_api
from tests.browser.test_student import set_code
from tests.processes import Web

LESSON = "tensor-basics"
WRONG = "print('not the answer')\n"
SAME_OUTPUT = "print('not the answer   ')\nprint()\n"  # trailing spaces and a blank line
HINT = "Your program prints a sentence; the exercise asks for a tensor. Print the tensor."
WORDS = {
    "en": {"write": "Write a hint for this output", "saved": "Hint saved", "from": "your teacher"},
    "tr": {
        "write": "Bu çıktı için ipucu yazın",
        "saved": "İpucu kaydedildi",
        "from": "Öğretmeniniz",
    },
}


@pytest.mark.parametrize("lang", ["en", "tr"])
def test_teacher_hints_a_wrong_output_and_a_student_sees_it(
    visitor_factory: VisitorFactory, server: Web, lang: str
) -> None:
    words = WORDS[lang]
    teacher_name = unique("teach")
    create_teacher(server, teacher_name)
    with httpx.Client(base_url=server.url, timeout=60) as client:
        class_id, code = class_with_lesson(client, teacher_name, LESSON, name="Hints ", due_at=None)
        first = sign_up_api(client, unique("a"))
        join_class(client, code, first)
        second_name = unique("b")
        second = sign_up_api(client, second_name)
        join_class(client, code, second)
        exercise = client.get(f"/api/lessons/{LESSON}", headers=first).json()["exercises"][0]["id"]
        graded(client, first, exercise, WRONG)
        # A student of another class (the same teacher's) with the same output.
        _, other_code = class_with_lesson(client, teacher_name, LESSON, name="Other ", due_at=None)
        outsider = sign_up_api(client, unique("c"))
        join_class(client, other_code, outsider)

    teacher = visitor_factory(lang)
    log_in(teacher, teacher_name)
    page = teacher.go(f"/classes/{class_id}/insight?lesson={LESSON}")
    group = page.locator("ol.wrong-list > li").filter(has_text="not the answer").first
    group.locator("details.hint-edit > summary").click()
    assert words["write"] in group.locator("details.hint-edit > summary").inner_text()
    group.locator("textarea[name=text]").fill(HINT)
    teacher.audit("insight-hint-form")
    group.locator("form.hint-form button[type=submit]").click()
    page.wait_for_url(re.compile(r"/insight\?lesson=.*#hint-[0-9a-f]{64}$"))
    assert words["saved"] in page.locator("main .alert").first.inner_text()
    saved = page.locator("ol.wrong-list .output-hint").first
    assert HINT in saved.inner_text()
    teacher.audit("insight-with-hint")
    page.set_viewport_size({"width": 390, "height": 844})
    no_sideways_scroll(page)

    # Another student of the class: the same output, give or take trailing spaces.
    student = visitor_factory(lang)
    log_in(student, second_name)
    page = student.go(f"/lessons/{LESSON}")
    article = page.locator(f"article.exercise[data-exercise='{exercise}']")
    set_code(student, article, SAME_OUTPUT)
    article.locator("button.submit").click()
    article.locator(".live .verdict-line.wrong").wait_for(timeout=60_000)
    live_hint = article.locator(".live .output-hint")
    live_hint.wait_for()
    assert HINT in live_hint.inner_text()
    assert words["from"] in (live_hint.text_content() or "")
    # Beside the diff: the hint comes right before the side-by-side table.
    assert article.locator(".live .output-hint + .run table.side-by-side").count() == 1
    student.audit("lesson-live-hint")
    # Drawn again from the API in the history, and on the page after a reload.
    article.locator("section.history .output-hint").first.wait_for(state="attached")
    page.reload()
    attempt = page.locator(f"article.exercise[data-exercise='{exercise}'] details.submission").first
    assert HINT in (attempt.locator(".output-hint").text_content() or "")
    student.audit("lesson-history-hint")
    assert not teacher.errors and not student.errors  # type: ignore[attr-defined]

    # Not for students of another class, even with the same output.
    with httpx.Client(base_url=server.url, timeout=60) as client:
        theirs = graded(client, outsider, exercise, WRONG)
        seen = client.get(f"/api/submissions/{theirs}", headers=outsider).json()
        assert seen["verdict"] == "wrong_output" and seen["output_hints"] == []
