"""The teacher's journey in a real browser, in English and in Turkish: a teacher (made on
the command line) logs in, creates a class and assigns a lesson; a student joins with the
code, answers and submits code; the teacher sees the progress grid and, in the drill-down,
the student's code. axe audits every page."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import (
    PASSWORD,
    Visitor,
    VisitorFactory,
    create_teacher,
    sign_up,
    unique,
)
from tests.processes import Web

WORDS = {
    "en": {
        "created": "created",
        "joined": "Its assignments are below.",
        "in_progress": "In progress",
    },
    "tr": {"created": "oluşturuldu", "joined": "Ödevleri aşağıda.", "in_progress": "Devam ediyor"},
}
CODE = "import torch\n\nx = torch.arange(6).reshape(2, 3)\nprint(x)\n"


def log_in(v: Visitor, username: str) -> None:
    page = v.go("/login")
    v.expect_language()
    v.audit("login")
    page.fill("#username", username)
    page.fill("#password", PASSWORD)
    page.locator("main form button[type=submit]").click()
    page.wait_for_url(v.base + "/")


@pytest.mark.parametrize("lang", ["en", "tr"])
def test_teacher_journey(visitor_factory: VisitorFactory, server: Web, lang: str) -> None:
    words = WORDS[lang]
    teacher_name = unique("teach")
    create_teacher(server, teacher_name)

    teacher: Visitor = visitor_factory(lang)
    log_in(teacher, teacher_name)
    teacher.audit("teacher-home")
    page = teacher.go("/classes")
    teacher.audit("classes")
    class_name = f"PyTorch {lang.upper()} {unique('')}"
    page.fill("#class-name", class_name)
    page.locator("form[action='/classes'] button[type=submit]").click()
    page.wait_for_url(re.compile(r"/classes/\d+$"))
    class_path = page.url.removeprefix(teacher.base)
    assert words["created"] in page.locator("main .alert").inner_text()
    page.select_option("#assign-lesson", "tensor-basics")
    page.locator("form.assign-form button[type=submit]").click()
    page.wait_for_url(re.compile(r"/classes/\d+#assignments$"))
    join_code = page.locator(".join-code.big").inner_text().strip()
    assert re.fullmatch(r"[A-Z0-9]{6,12}", join_code), join_code
    teacher.audit("class")

    student: Visitor = visitor_factory(lang)
    student_name = unique("stu")
    sign_up(student, student_name)
    page = student.go("/classes")
    student.audit("student-classes")
    page.fill("#join-code", join_code.lower())
    page.locator("form[action='/join'] button[type=submit]").click()
    page.wait_for_url(re.compile(r"/#assignments$"))
    assert words["joined"] in page.locator(".home-classes").inner_text()
    assert page.locator('.home-classes a[href="/lessons/tensor-basics"]').count() == 1
    student.audit("student-home-with-assignment")

    page = student.go("/lessons/tensor-basics")
    exercise = page.locator("article.exercise").first
    exercise.locator(".cm-content").click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(CODE)
    page.keyboard.press("ControlOrMeta+Enter")
    exercise.locator(".live .verdict-line").wait_for()
    question = page.locator("article.question").first
    question.locator("input[name=answer]").first.check()
    question.get_by_role("button").click()
    question.locator(".feedback .verdict").wait_for()
    student.audit("student-lesson")

    page = teacher.go(class_path + "/progress")
    teacher.audit("grid")
    row = page.locator("table.grid tbody tr", has_text=student_name)
    assert row.count() == 1
    cell = row.locator("td.c").first
    assert words["in_progress"] in cell.inner_text()
    teacher.shot("teacher-grid")

    cell.locator("a").click()
    page.wait_for_url(re.compile(r"/students/\d+/lessons/tensor-basics$"))
    timeline = page.locator("ol.timeline")
    assert "torch.arange(6).reshape(2, 3)" in timeline.locator("pre.code").first.inner_text()
    teacher.audit("drilldown")
    teacher.shot("teacher-drilldown")

    page = teacher.go(class_path + "/insight")
    teacher.audit("insight")
    assert not teacher.errors and not student.errors  # type: ignore[attr-defined]
