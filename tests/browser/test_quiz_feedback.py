"""Quiz feedback in a real browser (app/quizzes/reveal.py): a wrong answer is told what is
wrong (the option chosen, the rows matched wrongly) and how many tries are left, never the
right answer at once; "Show the answer" shows it, by keyboard, and moves the focus there;
the page drawn again by the server says the same; an empty blank is refused, not counted."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import Visitor, VisitorFactory, sign_up, unique
from tests.browser.test_question_kinds import audit_questions

LESSON = "gpu-support"
MC = "gpu-support-same-device"
FILL = "gpu-support-move-to"
MATCH = "gpu-support-match-terms"
WORDS: dict[str, dict[str, Any]] = {
    "en": {
        "not_quite": "Not quite.",
        "correct": "Correct.",
        "not_right": "Not right:",
        "one_more": "1 more try before the answer is shown.",
        "show_answer": "Show the answer",
        "the_answer": "The answer:",
        "every_part": "Answer every part first.",
        "option_a": "A. PyTorch moves the CPU tensor to the GPU for you.",
        "option_d": "D. It raises an error; both must be on the same device.",
        "swapped": [
            "torch.cuda.is_available() → Move to the chosen device",
            ".to(device) → Is there a usable NVIDIA GPU?",
        ],
        "matching": {
            "torch.cuda.is_available()": "Is there a usable NVIDIA GPU?",
            ".to(device)": "Move to the chosen device",
        },
    },
    "tr": {
        "not_quite": "Tam değil.",
        "correct": "Doğru.",
        "not_right": "Doğru değil:",
        "one_more": "Cevap gösterilmeden önce 1 deneme hakkınız daha var.",
        "show_answer": "Cevabı göster",
        "the_answer": "Cevap:",
        "every_part": "Önce her kısmı cevaplayın.",
        "option_a": "A. PyTorch CPU'daki tensörü sizin yerinize GPU'ya taşır.",
        "option_d": "D. Hata verir; ikisi de aynı aygıtta olmalıdır.",
        "swapped": [
            "torch.cuda.is_available() → Seçilen aygıta taşı",
            ".to(cihaz) → Kullanılabilir bir NVIDIA GPU'su var mı?",
        ],
        "matching": {
            "torch.cuda.is_available()": "Kullanılabilir bir NVIDIA GPU'su var mı?",
            ".to(cihaz)": "Seçilen aygıta taşı",
        },
    },
}


def check(article: Any) -> None:
    article.locator("form.answer-form button").click()


def wrong_then_shown(v: Visitor) -> None:
    page, words = v.page, WORDS[v.lang]
    mc = page.locator(f"#q-{MC}")
    feedback = mc.locator(".feedback")
    mc.locator('input[type="radio"]').nth(0).check()
    check(mc)
    feedback.get_by_text(words["not_quite"]).wait_for()
    assert (
        feedback.locator("p.wrong-parts").inner_text()
        == f"{words['not_right']} {words['option_a']}"
    )
    assert feedback.locator("p.tries-left").inner_text() == words["one_more"]
    assert words["the_answer"] not in feedback.inner_text()
    assert feedback.locator(".explanation").count() == 0

    # The server draws the same after a reload.
    page.reload()
    feedback = page.locator(f"#q-{MC} .feedback")
    assert (
        feedback.locator("p.wrong-parts").inner_text()
        == f"{words['not_right']} {words['option_a']}"
    )
    assert feedback.locator("p.tries-left").inner_text() == words["one_more"]

    # "Show the answer" by keyboard: the answer and the explanation, the focus on them.
    button = feedback.get_by_role("button", name=words["show_answer"])
    button.focus()
    page.keyboard.press("Enter")
    shown = feedback.locator("p.the-answer")
    shown.wait_for()
    assert shown.inner_text() == f"{words['the_answer']} {words['option_d']}"
    assert page.evaluate("document.activeElement.classList.contains('the-answer')")
    assert feedback.locator(".explanation").count() == 1
    assert feedback.get_by_role("button").count() == 0
    audit_questions(page, MC)
    v.shot("quiz-answer-shown", page.locator(f"#q-{MC}"))

    # Still answerable, and right is right.
    mc = page.locator(f"#q-{MC}")
    mc.locator('input[type="radio"]').nth(3).check()
    check(mc)
    mc.locator(".feedback").get_by_text(words["correct"]).wait_for()


def empty_blank_is_refused(v: Visitor) -> None:
    page, words = v.page, WORDS[v.lang]
    fill = page.locator(f"#q-{FILL}")
    fill.locator('input[name="blank"]').fill("  ")
    check(fill)
    fill.locator(".feedback [role=alert]").get_by_text(words["every_part"]).wait_for()
    # Nothing was recorded: the page drawn again has no verdict for it.
    page.reload()
    assert page.locator(f"#q-{FILL} .feedback .verdict").count() == 0


def matching_names_the_wrong_rows(v: Visitor) -> None:
    page, words = v.page, WORDS[v.lang]
    matching = page.locator(f"#q-{MATCH}")
    pairs = words["matching"]
    first, second = list(pairs)
    # Every row right but the first two, swapped.
    for select in matching.locator("select").all():
        select.select_option(index=1)  # something in every row; fixed below
    written = {  # the other two rows, as the lesson writes them
        "en": {".cpu()": "Bring back to the CPU", '"mps"': "The GPU of Apple silicon"},
        "tr": {".cpu()": "CPU'ya geri getir", '"mps"': "Apple silikonun GPU'su"},
    }[v.lang]
    for left, right in written.items():
        matching.get_by_label(left, exact=True).select_option(label=right)
    matching.get_by_label(first, exact=True).select_option(label=pairs[second])
    matching.get_by_label(second, exact=True).select_option(label=pairs[first])
    check(matching)
    feedback = matching.locator(".feedback")
    feedback.get_by_text(words["not_quite"]).wait_for()
    assert feedback.locator("p.wrong-parts code").all_inner_texts() == words["swapped"]
    assert words["the_answer"] not in feedback.inner_text()


@pytest.mark.parametrize("lang", ["en", "tr"])
def test_wrong_answers_are_told_what_is_wrong_before_the_answer(
    visitor_factory: VisitorFactory, lang: str
) -> None:
    v = visitor_factory(lang)
    sign_up(v, unique("quiz"), audit=False)
    v.go(f"/lessons/{LESSON}")
    wrong_then_shown(v)
    empty_blank_is_refused(v)
    matching_names_the_wrong_rows(v)
    audit_questions(v.page, MC, FILL, MATCH)
    assert not v.errors  # type: ignore[attr-defined]
