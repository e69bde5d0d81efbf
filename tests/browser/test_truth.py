"""What the platform says is true, in a real browser, in English and in Turkish: a try-out
whose output differs says so (never "Passed"), to the student and in the teacher's
drill-down; a give-up, which the student is told the teacher will see, shows in the grid, the
drill-down and the insight, and so does an answer the student asked to be shown ("Show the
answer"); the lesson says which devices grade here (no GPU on this
machine: cuda is checked elsewhere). axe audits each page."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import Visitor, VisitorFactory, create_teacher, sign_up, unique
from tests.browser.test_teacher import log_in
from tests.processes import Web

WORDS = {
    "en": {
        "differs": "Output differs from the expected output",
        "run_differs": "the output differs from the expected output",
        "passed": "Passed",
        "gave_up": "Gave up and saw the sample solution",
        "insight_gave_up": "1 student gave up and saw the sample solution.",
        "show_answer": "Show the answer",
        "the_answer": "The answer:",
        "asked": "Asked to be shown the answer",
        "insight_asked": "1 student asked to be shown the answer.",
        "graded_here": "Graded here on:",
        "elsewhere": "is checked on servers that have it",
    },
    "tr": {
        "differs": "Çıktı beklenen çıktıdan farklı",
        "run_differs": "çıktı beklenen çıktıdan farklı",
        "passed": "Geçti",
        "gave_up": "Vazgeçti ve örnek çözümü gördü",
        "insight_gave_up": "1 öğrenci vazgeçip örnek çözümü gördü.",
        "show_answer": "Cevabı göster",
        "the_answer": "Cevap:",
        "asked": "Cevabın gösterilmesini istedi",
        "insight_asked": "1 öğrenci cevabın gösterilmesini istedi.",
        "graded_here": "Burada değerlendirildiği aygıtlar:",
        "elsewhere": "bu aygıta sahip sunucularda denetlenir",
    },
}
TRY_CODE = "print('not the expected output')\n"
ASKED = "tensor-basics-default-dtype"  # multiple choice; option 0 is wrong


def set_code(page: object, exercise: object, code: str) -> None:
    exercise.locator(".cm-content").click()  # type: ignore[attr-defined]
    page.keyboard.press("ControlOrMeta+a")  # type: ignore[attr-defined]
    page.keyboard.press("Delete")  # type: ignore[attr-defined]
    page.keyboard.insert_text(code)  # type: ignore[attr-defined]


@pytest.mark.parametrize("lang", ["en", "tr"])
def test_what_students_and_teachers_are_told_is_true(
    visitor_factory: VisitorFactory, server: Web, lang: str
) -> None:
    words = WORDS[lang]
    teacher_name = unique("teach")
    create_teacher(server, teacher_name)
    teacher: Visitor = visitor_factory(lang)
    log_in(teacher, teacher_name)
    page = teacher.go("/classes")
    page.fill("#class-name", f"Truth {unique('')}")
    page.locator("form[action='/classes'] button[type=submit]").click()
    page.wait_for_url(re.compile(r"/classes/\d+$"))
    class_path = page.url.removeprefix(teacher.base)
    page.select_option("#assign-lesson", "tensor-basics")
    page.locator("form.assign-form button[type=submit]").click()
    page.wait_for_url(re.compile(r"/classes/\d+#assignments$"))
    join_code = page.locator(".join-code.big").inner_text().strip()

    student: Visitor = visitor_factory(lang)
    student_name = unique("stu")
    sign_up(student, student_name, audit=False)
    page = student.go("/classes")
    page.fill("#join-code", join_code)
    page.locator("form[action='/join'] button[type=submit]").click()
    page.wait_for_url(re.compile(r"/#assignments$"))

    # The lesson says where it is graded: cpu here, cuda only where a server has one.
    page = student.go("/lessons/gpu-support")
    devices = page.locator("article.exercise p.devices").first.inner_text()
    assert devices.startswith(words["graded_here"]) and "cpu" in devices
    assert f"cuda {words['elsewhere']}" in devices

    # A try-out with the wrong output says so, live and in the history.
    page = student.go("/lessons/tensor-basics")
    exercise = page.locator("article.exercise").first
    set_code(page, exercise, TRY_CODE)
    exercise.locator("button.run").click()
    exercise.locator(".live.live-run .verdict-line.wrong").wait_for()
    line = exercise.locator(".live .verdict-line").inner_text()
    assert words["run_differs"] in line and words["passed"] not in line
    assert words["differs"] in exercise.locator(".live .run-head").inner_text()
    assert "not the expected output" in exercise.locator(".live table.side-by-side").inner_text()
    history = exercise.locator("section.history ol.attempts > li")
    history.first.locator(".badge", has_text=words["differs"]).wait_for(state="attached")
    student.audit("try-out-differs")

    # Giving up: the teacher will see it, as the student was told.
    exercise.locator("details.give-up summary").click()
    exercise.locator("details.give-up button").click()
    exercise.locator("section.solution").wait_for()

    # A wrong answer, then "Show the answer": the teacher sees that too.
    question = page.locator(f"#q-{ASKED}")
    question.locator('input[type="radio"]').first.check()
    question.locator("form.answer-form button[type=submit]").click()
    question.locator(".feedback").get_by_role("button", name=words["show_answer"]).click()
    question.locator(".feedback").get_by_text(words["the_answer"]).wait_for()

    page = teacher.go(class_path + "/progress")
    cell = page.locator("table.grid tbody tr", has_text=student_name).locator("td.c").first
    assert "⚑1" in cell.inner_text() and "⚐1" in cell.inner_text()
    teacher.audit("grid-with-give-up")

    cell.locator("a").click()
    page.wait_for_url(re.compile(r"/students/\d+/lessons/tensor-basics$"))
    timeline = page.locator("ol.timeline")
    assert words["gave_up"] in timeline.locator("li.event.gave-up").inner_text()
    assert words["asked"] in timeline.locator("li.event.answer-requested").inner_text()
    try_out = timeline.locator("li.event.submission").first
    assert words["differs"] in try_out.locator(".event-head").inner_text()
    assert f"✓ {words['passed']}" not in timeline.inner_text()
    teacher.audit("drilldown-truth")

    page = teacher.go(class_path + "/insight?lesson=tensor-basics")
    assert words["insight_gave_up"] in page.locator("#items").inner_text()
    assert words["insight_asked"] in page.locator("#items").inner_text()
    teacher.audit("insight-with-give-up")
    assert not teacher.errors and not student.errors  # type: ignore[attr-defined]
