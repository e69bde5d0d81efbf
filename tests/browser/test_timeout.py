"""A submission that loops forever is told it was stopped after the time limit and to look
for an endless loop, never "exit code -9" (the grader's kill), live and in the history after
a reload, in English and in Turkish (issue 11, point 14). axe audits the page."""

from __future__ import annotations

import pytest

from tests.browser.conftest import Visitor, VisitorFactory, sign_up, unique
from tests.browser.test_student import set_code

LOOP = "import time\n\nwhile True:\n    time.sleep(0.1)\n"
WORDS = {
    "en": {
        "stopped": "stopped after the time limit of 10 s",
        "loop": "look for a loop that never ends",
        "exit_code": "exit code",
    },
    "tr": {
        "stopped": "10 sn süre sınırında durduruldu",
        "loop": "hiç bitmeyen bir döngü arayın",
        "exit_code": "çıkış kodu",
    },
}


def says_timeout(text: str, lang: str) -> None:
    words = WORDS[lang]
    assert words["stopped"] in text and words["loop"] in text, text
    assert words["exit_code"] not in text and "-9" not in text, text


@pytest.mark.parametrize("lang", ["en", "tr"])
def test_an_endless_loop_is_told_the_time_limit_not_an_exit_code(
    visitor_factory: VisitorFactory, lang: str
) -> None:
    student: Visitor = visitor_factory(lang)
    sign_up(student, unique("loop"), audit=False)
    page = student.go("/lessons/tensor-basics")
    exercise = page.locator("article.exercise").first
    set_code(student, exercise, LOOP)
    exercise.locator("button.submit").click()
    # The wall-time limit (10 s) and the grader's grace, on a loaded machine.
    exercise.locator(".live.live-grade .verdict-line.wrong").wait_for(timeout=90_000)
    says_timeout(exercise.locator(".live .run-head").first.inner_text(), lang)
    student.audit("timeout-live")

    page.reload()
    exercise = page.locator("article.exercise").first
    newest = exercise.locator("section.history ol.attempts > li").first
    says_timeout(newest.locator(".run-head").first.inner_text(), lang)
    student.audit("timeout-history")
    assert not student.errors  # type: ignore[attr-defined]
