"""Finding the way, in a real browser: an answer given while logged out survives signing up
and comes back in its question; a class's join link opened while logged out names the class
and is still there to confirm after signing up; the Progress page says where to carry on.
axe audits every page (the first administrator: test_setup_token.py)."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.browser.conftest import (
    VisitorFactory,
    create_teacher,
    log_in,
    sign_up_here,
    unique,
)
from tests.processes import Web

WORDS = {
    "en": {
        "why_answer": "to check your answer",
        "why_join": "to join the class",
        "restored": "Your answer from before you logged in is back.",
        "correct": "Correct.",
        "create": "Create an account",
        "joined": "Its assignments are below.",
        "continue": "Continue",
        "progress": "Progress",
    },
    "tr": {
        "why_answer": "Cevabınızı kontrol etmek için",
        "why_join": "sınıfına katılmak için",
        "restored": "Giriş yapmadan önce verdiğiniz cevap geri geldi.",
        "correct": "Doğru.",
        "create": "Hesap oluşturun",
        "joined": "Ödevleri aşağıda.",
        "continue": "Devam et",
        "progress": "İlerleme",
    },
}
LESSON = "gpu-support"
MC = "gpu-support-same-device"  # the right answer is its fourth option
FILL = "gpu-support-move-to"  # a blank: "to"


@pytest.mark.parametrize("lang", ["en", "tr"])
def test_an_answer_given_logged_out_comes_back_after_signing_up(
    visitor_factory: VisitorFactory, lang: str
) -> None:
    words = WORDS[lang]
    v = visitor_factory(lang)
    page = v.go(f"/lessons/{LESSON}")
    # Two answers typed; Check on the second while logged out.
    page.locator(f'#q-{FILL} input[name="blank"]').fill("to")
    mc = page.locator(f"#q-{MC}")
    mc.locator('input[type="radio"]').nth(3).check()
    mc.locator("form.answer-form button[type=submit]").click()

    # The log-in page says why, and offers signing up with the same way back.
    page.wait_for_url(re.compile(r"/login\?"))
    query = parse_qs(urlsplit(page.url).query)
    assert query == {"next": [f"/lessons/{LESSON}#q-{MC}"], "why": ["answer"]}
    assert words["why_answer"] in page.locator("main .alert.arrival").inner_text()
    v.audit("login-to-answer")
    page.locator("main").get_by_role("link", name=words["create"]).click()
    page.wait_for_url(re.compile(r"/signup\?"))
    assert words["why_answer"] in page.locator("main .alert.arrival").inner_text()
    v.audit("signup-to-answer")
    sign_up_here(v, unique("ans"))

    # Back at the question, logged in, the answer filled in again and waiting.
    page.wait_for_url(re.compile(rf"/lessons/{LESSON}#q-{MC}$"))
    assert page.locator(f"#q-{MC} input[type=radio]").nth(3).is_checked()
    assert words["restored"] in page.locator(f"#q-{MC} .feedback").inner_text()
    v.audit("lesson-answer-restored")
    page.locator(f"#q-{MC} form.answer-form button[type=submit]").click()
    page.locator(f"#q-{MC} .feedback").get_by_text(words["correct"]).wait_for()
    # Only the question that was sent is kept; and once back, it is not kept again.
    assert page.locator(f'#q-{FILL} input[name="blank"]').input_value() == ""
    page.reload()
    assert page.locator(f"#q-{MC} .feedback .pending-answer").count() == 0

    # The Progress page, from the header: the last step and the way on.
    page.locator("header nav").get_by_role("link", name=words["progress"]).click()
    page.wait_for_url(v.base + "/progress")
    v.audit("progress")
    v.shot("progress")
    assert f'href="/lessons/{LESSON}#q-{MC}"' in page.content()
    page.locator("main .continue").get_by_role("link", name=words["continue"]).click()
    page.wait_for_url(re.compile(rf"/lessons/{LESSON}#exercise-"))
    assert not v.errors  # type: ignore[attr-defined]


@pytest.mark.parametrize("lang", ["en", "tr"])
def test_a_join_link_opened_logged_out_is_still_there_after_signing_up(
    visitor_factory: VisitorFactory, server: Web, lang: str
) -> None:
    words = WORDS[lang]
    teacher_name = unique("teach")
    create_teacher(server, teacher_name)
    teacher = visitor_factory(lang)
    log_in(teacher, teacher_name)
    page = teacher.go("/classes")
    class_name = f"Group {lang.upper()} {unique('')}"
    page.fill("#class-name", class_name)
    page.locator("form[action='/classes'] button[type=submit]").click()
    page.wait_for_url(re.compile(r"/classes/\d+$"))
    join_code = page.locator(".join-code.big").inner_text().strip()

    student = visitor_factory(lang)
    page = student.go(f"/join/{join_code}")
    page.wait_for_url(re.compile(r"/login\?next="))
    reason = page.locator("main .alert.arrival").inner_text()
    assert words["why_join"] in reason and class_name in reason
    student.audit("login-to-join")
    page.locator("main").get_by_role("link", name=words["create"]).click()
    assert class_name in page.locator("main .alert.arrival").inner_text()
    sign_up_here(student, unique("joiner"))

    # The join is still pending: confirm it.
    page.wait_for_url(student.base + f"/join/{join_code}")
    assert class_name in page.locator("main").inner_text()
    student.audit("join-confirm")
    page.locator("main form button[type=submit]").click()
    page.wait_for_url(re.compile(r"/#assignments$"))
    assert words["joined"] in page.locator(".home-classes").inner_text()
    page = student.go("/progress")
    assert class_name in page.locator("main").inner_text()
