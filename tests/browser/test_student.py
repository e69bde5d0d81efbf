"""The student's journey in a real browser, in English and in Turkish: sign up, read a
lesson, answer every kind of question wrong and then right, write code in the editor,
submit it wrong and then right, try it out with Run, see the verdicts, the solution and the
progress; the lesson widgets by keyboard; drafts; giving up. axe audits every page."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.browser.conftest import Visitor, VisitorFactory, playwright_api, sign_up, unique
from tests.browser.test_question_kinds import answer_ordering_by_keyboard, answer_predict_output
from tests.processes import Web

# What each language shows (the interface's words; lesson content stays as written).
WORDS: dict[str, dict[str, Any]] = {
    "en": {
        "lesson_title": "GPU support",
        "body": "Why the GPU matters",
        "correct": "Correct.",
        "not_quite": "Not quite.",
        "wrong_output": "Wrong output",
        "passed": "Passed",
        "solution": "Sample solution",
        "completed": "Completed ✓",
        "draft": "Your unsaved draft was restored.",
        "cpu_wins": "The CPU wins",
        "gpu_wins": "The GPU wins",
        "other": ("tr", "Türkçe"),
        "check": "Check yourself",
        "starter": "# write your code here",
        "solution_code": "result.tolist()",
        "matching": {
            "torch.cuda.is_available()": "Is there a usable NVIDIA GPU?",
            ".to(device)": "Move to the chosen device",
            ".cpu()": "Bring back to the CPU",
            '"mps"': "The GPU of Apple silicon",
        },
    },
    "tr": {
        "lesson_title": "GPU desteği",
        "body": "GPU neden önemli?",
        "correct": "Doğru.",
        "not_quite": "Tam değil.",
        "wrong_output": "Yanlış çıktı",
        "passed": "Geçti",
        "solution": "Örnek çözüm",
        "completed": "Tamamlandı ✓",
        "draft": "Gönderilmemiş taslağınız geri yüklendi.",
        "cpu_wins": "CPU kazandı",
        "gpu_wins": "GPU kazandı",
        "other": ("en", "English"),
        "check": "Kendini sına",
        "starter": "# kodunuzu buraya yazın",
        "solution_code": "sonuc.tolist()",
        "matching": {
            "torch.cuda.is_available()": "Kullanılabilir bir NVIDIA GPU'su var mı?",
            ".to(cihaz)": "Seçilen aygıta taşı",
            ".cpu()": "CPU'ya geri getir",
            '"mps"': "Apple silikonun GPU'su",
        },
    },
}

WRONG_CODE = """import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
x = torch.ones(2, 3).to(device) * 3
print(x.cpu())
print(x.device.type == "cpu")
"""
RIGHT_CODE = """import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
product = torch.ones(2, 3).to(device) * 3
result = product.cpu()
print(result.tolist())
print(product.device.type)
"""
TRY_CODE = "import torch\nprint(torch.ones(2).sum())\n"


def feedback(page: Any, question_id: str) -> Any:
    return page.locator(f"#q-{question_id} .feedback")


def answer_questions(v: Visitor) -> None:
    page, words = v.page, WORDS[v.lang]
    # Multiple choice, with the mouse: wrong, then right.
    mc = page.locator("#q-gpu-support-same-device")
    mc.locator('input[type="radio"]').nth(0).check()
    mc.locator("form.answer-form button").click()
    feedback(page, "gpu-support-same-device").get_by_text(words["not_quite"]).wait_for()
    mc.locator('input[type="radio"]').nth(3).check()
    mc.locator("form.answer-form button").click()
    feedback(page, "gpu-support-same-device").get_by_text(words["correct"]).wait_for()

    # Fill in the blank, by keyboard alone: type, then Enter submits the form.
    blank = page.locator('#q-gpu-support-move-to input[name="blank"]')
    blank.focus()
    page.keyboard.type("cuda")
    page.keyboard.press("Enter")
    feedback(page, "gpu-support-move-to").get_by_text(words["not_quite"]).wait_for()
    blank.fill("")
    blank.focus()
    page.keyboard.type("to")
    page.keyboard.press("Enter")
    feedback(page, "gpu-support-move-to").get_by_text(words["correct"]).wait_for()

    # Matching, in the page's language: two pairs swapped, then every pair right.
    matching = page.locator("#q-gpu-support-match-terms")
    pairs = words["matching"]
    lefts = list(pairs)
    for left in lefts:
        matching.get_by_label(left, exact=True).select_option(label=pairs[left])
    matching.get_by_label(lefts[0], exact=True).select_option(label=pairs[lefts[1]])
    matching.get_by_label(lefts[1], exact=True).select_option(label=pairs[lefts[0]])
    matching.locator("form.answer-form button").click()
    feedback(page, "gpu-support-match-terms").get_by_text(words["not_quite"]).wait_for()
    for left in lefts:
        matching.get_by_label(left, exact=True).select_option(label=pairs[left])
    matching.locator("form.answer-form button").click()
    feedback(page, "gpu-support-match-terms").get_by_text(words["correct"]).wait_for()

    # Ordering by keyboard alone; predict the output, wrong and then right.
    answer_ordering_by_keyboard(v)
    answer_predict_output(v)

    # The lesson's other questions, right at the first try: several boxes ticked, a radio
    # button, a blank typed and sent with Enter.
    several = page.locator("#q-gpu-support-exceptions")
    for index in (1, 2, 3):
        several.locator('input[type="checkbox"]').nth(index).check()
    several.locator("form.answer-form button").click()
    feedback(page, "gpu-support-exceptions").get_by_text(words["correct"]).wait_for()
    rocm = page.locator("#q-gpu-support-rocm")
    rocm.locator('input[type="radio"]').nth(2).check()
    rocm.locator("form.answer-form button").click()
    feedback(page, "gpu-support-rocm").get_by_text(words["correct"]).wait_for()
    page.locator('#q-gpu-support-device-type input[name="blank"]').focus()
    page.keyboard.type("type")
    page.keyboard.press("Enter")
    feedback(page, "gpu-support-device-type").get_by_text(words["correct"]).wait_for()


def set_code(v: Visitor, exercise: Any, code: str) -> None:
    exercise.locator(".cm-content").click()
    v.page.keyboard.press("ControlOrMeta+a")
    v.page.keyboard.press("Delete")
    v.page.keyboard.insert_text(code)


def work_on_the_exercise(v: Visitor) -> None:
    page, words = v.page, WORDS[v.lang]
    exercise = page.locator("#exercise-gpu-support-device-independent")
    editor = exercise.locator(".cm-content")
    assert editor.get_attribute("role") == "textbox"
    assert editor.get_attribute("aria-labelledby") == "code-gpu-support-device-independent-label"
    # The editor has Python highlighting and the plain textarea is hidden but kept in sync.
    assert exercise.locator("textarea[name=code]").is_hidden()

    # Wrong code, typed into the editor and sent with Ctrl+Enter.
    set_code(v, exercise, WRONG_CODE)
    # Highlighting follows the parse, which CodeMirror runs when the page is idle: wait for
    # it ("import", "if", "else" are keywords) rather than count the spans at once.
    playwright_api.expect(exercise.locator(".cm-content .tok-keyword").first).to_be_visible()
    page.keyboard.press("ControlOrMeta+Enter")
    exercise.locator(".live .verdict-line.wrong").wait_for()
    assert words["wrong_output"] in exercise.locator(".live .verdict-line").inner_text()
    table = exercise.locator(".live table.side-by-side").first
    assert table.locator("tr.differs").count() >= 2
    assert "tensor([[3., 3., 3.]," in table.inner_text()
    assert "[[3.0, 3.0, 3.0], [3.0, 3.0, 3.0]]" in table.inner_text()
    # The history is fetched after the verdict is shown, so wait for it rather than race it.
    playwright_api.expect(exercise.locator("section.history ol.attempts > li")).to_have_count(1)
    v.audit("lesson-failed-submission")
    exercise.scroll_into_view_if_needed()
    v.shot("submission-failed", exercise)

    # A try-out run on the CPU: not graded, and its output differs from the expected one,
    # which it says (never "Passed"), beside the expected output.
    set_code(v, exercise, TRY_CODE)
    exercise.locator("button.run").click()
    exercise.locator(".live.live-run .verdict-line.wrong").wait_for()
    assert words["passed"] not in exercise.locator(".live .verdict-line").inner_text()
    assert "tensor(2.)" in exercise.locator(".live table.side-by-side").inner_text()

    # The right code, sent with the button.
    set_code(v, exercise, RIGHT_CODE)
    exercise.locator("button.submit").click()
    exercise.locator(".live.live-grade .verdict-line.right").wait_for()
    assert words["passed"] in exercise.locator(".live .verdict-line").inner_text()
    exercise.locator("section.solution").wait_for()
    assert words["solution"] in exercise.locator("section.solution h4").inner_text()
    # The sample solution in the page's language (solution.tr.py in Turkish).
    assert words["solution_code"] in exercise.locator("section.solution pre").inner_text()
    history = exercise.locator("section.history ol.attempts > li")
    assert history.count() == 3
    assert history.locator(".mode-run").count() == 1
    v.audit("lesson-passed-submission")
    v.shot("submission-passed", exercise)


def keyboard_and_drafts(v: Visitor) -> None:
    page, words = v.page, WORDS[v.lang]
    exercise = page.locator("#exercise-gpu-support-device-independent")
    # Escape, then Tab, leaves the editor for the submit button.
    exercise.locator(".cm-content").click()
    page.keyboard.press("End")
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.classList.contains('submit')")
    # An unsent edit survives a reload as a draft; Reset brings back the starter code.
    exercise.locator(".cm-content").click()
    page.keyboard.press("ControlOrMeta+End")
    page.keyboard.insert_text("\n# a note to myself\n")
    page.wait_for_timeout(600)
    page.reload()
    exercise = page.locator("#exercise-gpu-support-device-independent")
    exercise.locator(".draft-note").get_by_text(words["draft"]).wait_for()
    assert "# a note to myself" in exercise.locator(".cm-content").inner_text()
    exercise.locator("button.reset").click()
    assert words["starter"] in exercise.locator(".cm-content").inner_text()
    # The solution stays offered after a reload, server-rendered.
    assert exercise.locator("section.solution").count() == 1


def gpu_lesson_widgets(v: Visitor) -> None:
    """Predict-then-reveal, the race and check-yourself, by keyboard alone."""
    words = WORDS[v.lang]
    page = v.go("/lessons/tensors-on-the-gpu")
    v.audit("lesson-tensors-on-the-gpu")
    predict = page.locator("details.predict").first
    assert predict.get_attribute("open") is None
    predict.locator("summary").focus()
    page.keyboard.press("Enter")
    assert predict.get_attribute("open") is not None
    slider = page.locator(".race input[type=range]")
    slider.focus()
    race = page.locator(".race")
    race.get_by_role("button").focus()
    page.keyboard.press("Enter")
    race.locator(".race-result").get_by_text(words["cpu_wins"]).wait_for()
    assert "32" in race.locator(".race-result").inner_text()
    slider.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")  # 3 steps: CPU 96 ticks, GPU 83
    race.locator(".race-result").get_by_text(words["gpu_wins"]).wait_for()
    assert re.search(r"\b83\b", race.locator(".race-result").inner_text())
    assert race.locator("output").inner_text() == "3"
    check = page.locator(".check-yourself details").first
    assert check.get_attribute("open") is None
    check.locator("summary").focus()
    page.keyboard.press("Space")
    assert check.get_attribute("open") is not None
    v.audit("lesson-tensors-on-the-gpu-opened")


def give_up(v: Visitor) -> None:
    words = WORDS[v.lang]
    page = v.go("/lessons/tensor-basics")
    v.audit("lesson-tensor-basics")
    exercise = page.locator("article.exercise").first
    exercise.locator("details.give-up summary").click()
    exercise.locator("details.give-up button").click()
    solution = exercise.locator("section.solution")
    solution.wait_for()
    assert words["solution"] in solution.inner_text()
    assert page.evaluate("document.activeElement.tagName") == "H4"


@pytest.mark.parametrize("lang", ["en", "tr"])
def test_student_journey(visitor_factory: VisitorFactory, lang: str) -> None:
    v: Visitor = visitor_factory(lang)
    words = WORDS[lang]
    sign_up(v, unique("stu"))
    v.expect_language()
    v.audit("catalog")

    page = v.go("/lessons/gpu-support")
    v.expect_language()
    assert page.locator("h1").inner_text() == words["lesson_title"]
    assert page.locator(".body h2").first.inner_text() == words["body"]
    assert words["check"] in page.locator(".check-yourself h2").inner_text()
    v.audit("lesson")
    v.shot("lesson")

    answer_questions(v)
    work_on_the_exercise(v)
    keyboard_and_drafts(v)

    page = v.go("/")
    card = page.locator('li.lesson-card:has(a[href="/lessons/gpu-support"])')
    assert words["completed"] in card.inner_text()
    assert "done" in (card.get_attribute("class") or "")
    v.audit("catalog-progress")
    v.shot("progress", page.locator("main"))

    gpu_lesson_widgets(v)
    give_up(v)

    # The switcher in the header changes the language, and it sticks (cookie).
    other, name = words["other"]
    page = v.go("/account")
    v.audit("account")
    page.get_by_role("navigation", name=re.compile("Language|Dil")).get_by_role(
        "link", name=name
    ).click()
    assert page.locator("html").get_attribute("lang") == other
    v.go("/")
    assert page.locator("html").get_attribute("lang") == other
    assert not v.errors, v.errors  # type: ignore[attr-defined]


def test_the_workbench_without_javascript(browser: Any, server: Web) -> None:
    """The plain forms: submit from the textarea, the page refreshes itself until the
    verdict is in; a try-out run; giving up shows the solution."""
    context = browser.new_context(java_script_enabled=False, locale="en-US")
    context.set_default_timeout(20_000)
    try:
        page = context.new_page()
        v = Visitor(page=page, base=server.url, lang="en", audited=[])
        sign_up(v, unique("nojs"), audit=False)
        v.go("/lessons/gpu-support")
        exercise = page.locator("#exercise-gpu-support-device-independent")
        textarea = exercise.locator("textarea[name=code]")
        assert textarea.is_visible()
        assert exercise.locator(".cm-editor").count() == 0
        textarea.fill(RIGHT_CODE)
        exercise.locator("button.submit").click()
        # Queued or running at first; <noscript><meta refresh> reloads until it is done.
        page.locator(
            "#exercise-gpu-support-device-independent .history details.verdict-passed"
        ).wait_for()
        exercise = page.locator("#exercise-gpu-support-device-independent")
        assert exercise.locator("section.solution").count() == 1
        textarea = exercise.locator("textarea[name=code]")
        assert "result.tolist()" in textarea.input_value()
        textarea.fill(TRY_CODE)
        exercise.locator("button.run").click()
        page.locator(".history details.mode-run.status-done").first.wait_for()
        try_out = page.locator(".history details.mode-run").first
        assert "Output differs from the expected output" in try_out.locator(".badge").inner_text()
        assert "tensor(2.)" in try_out.locator("table.side-by-side").inner_text()

        v.go("/lessons/tensor-basics")
        exercise = page.locator("article.exercise").first
        exercise.locator("details.give-up summary").click()
        exercise.locator("details.give-up button").click()
        page.locator("article.exercise section.solution").first.wait_for()

        # axe needs scripts (and timers) to run: audit the same pages, as the same student,
        # in a window whose scripts run but where the page's own bundle never loads.
        audit_context = browser.new_context(locale="en-US", storage_state=context.storage_state())
        try:
            audit_context.route("**/static/dist/app.js", lambda route: route.abort())
            plain = Visitor(page=audit_context.new_page(), base=server.url, lang="en", audited=[])
            for path in ("/lessons/gpu-support", "/lessons/tensor-basics"):
                plain.go(path)
                assert plain.page.locator(".cm-editor").count() == 0
                plain.audit(f"without-bundle:{path}")
        finally:
            audit_context.close()
    finally:
        context.close()
