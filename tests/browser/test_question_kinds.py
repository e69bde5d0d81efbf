"""The ordering and predict-the-output questions in a real browser: an ordering question
answered by keyboard alone (lines added, moved and indented, each change announced), wrong and
then right with how far it was said; a predict-the-output question answered wrongly, told
which line differs, then shown the expected output beside the answer line by line on asking
("Show the answer"), then answered rightly. The student's journey (test_student.py) answers
them with these helpers too."""

from __future__ import annotations

import json
from typing import Any

import yaml

from app.config import REPO_ROOT
from tests.browser.conftest import Visitor, inject_axe, sign_up, unique

LESSON = "gpu-support"
ORDERING = "gpu-support-order-running-total"
PREDICT = "gpu-support-predict-running-mean"
WORDS = {
    "en": {
        "check": "Check",
        "correct": "Correct.",
        "not_quite": "Not quite.",
        "not_right": "Not right:",
        "show_answer": "Show the answer",
        "distance": "6 of 7 lines in place; 1 step away.",
        "moved": "Moved {line} to line 6 of 7.",
        "indented": "{line}: indent 1.",
    },
    "tr": {
        "check": "Kontrol et",
        "correct": "Doğru.",
        "not_quite": "Tam değil.",
        "not_right": "Doğru değil:",
        "show_answer": "Cevabı göster",
        "distance": "7 satırın 6 tanesi yerinde; 1 adım uzakta.",
        "moved": "{line} taşındı: artık 7 satırın 6. satırı.",
        "indented": "{line}: girinti 1.",
    },
}


def written(question_id: str, lang: str, lesson: str = LESSON) -> dict[str, Any]:
    """The question as written in the lesson's questions.yaml, in `lang`."""
    path = REPO_ROOT / "exercises" / "lessons" / lesson / "questions.yaml"
    [question] = [
        q for q in yaml.safe_load(path.read_text())["questions"] if q["id"] == question_id
    ]
    if lang == "en":
        return dict(question)
    words = question.get("translations", {}).get(lang, {})
    lines = [
        line | {"code": theirs["code"]}
        for line, theirs in zip(question.get("lines", []), words.get("lines", []), strict=False)
    ]
    return question | words | ({"lines": lines} if lines else {})


def right_program(lang: str) -> list[tuple[str, int]]:
    """The ordering question's lines in the order written (a right one), with their indents."""
    lines = written(ORDERING, lang)["lines"]
    return [(line["code"], line.get("indent", 0)) for line in lines if not line.get("distractor")]


def focused_code(page: Any) -> str:
    return str(page.evaluate("document.activeElement.querySelector('code')?.textContent ?? ''"))


def add_line(page: Any, pool: Any, code: str) -> None:
    """From the focused line of the pool: Home, Down to `code`, Enter."""
    codes = pool.locator("li.parsons-line code").all_inner_texts()
    page.keyboard.press("Home")
    for _ in range(codes.index(code)):
        page.keyboard.press("ArrowDown")
    assert focused_code(page) == code
    page.keyboard.press("Enter")


def check_by_keyboard(page: Any, words: dict[str, str]) -> None:
    """Tab from the pool, past the program, to the Check button, and press it."""
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent.trim()") == words["check"]
    page.keyboard.press("Enter")


def answer_ordering_by_keyboard(v: Visitor) -> None:
    page, words = v.page, WORDS[v.lang]
    article = page.locator(f"#q-{ORDERING}")
    feedback = article.locator(".feedback")
    pool = article.locator(".parsons-pool")
    live = article.locator('.parsons [role="status"]')
    program = right_program(v.lang)
    # Without the script the page would show the table of selects; with it, two lists.
    assert not article.locator("table.ordering-lines").is_visible()

    # Wrong first: the last two lines swapped, nothing indented. Tab would reach the pool's
    # one tab stop; focusing it here saves counting the tab stops of the page before it.
    pool.locator('li.parsons-line[tabindex="0"]').focus()
    swapped = [*program[:-2], program[-1], program[-2]]
    for code, _indent in swapped:
        add_line(page, pool, code)
    assert article.locator(".parsons-program li.parsons-line code").all_inner_texts() == [
        code for code, _ in swapped
    ]
    assert program[-2][0] in live.inner_text()
    check_by_keyboard(page, words)
    feedback.get_by_text(words["not_quite"]).wait_for()
    assert feedback.locator("p.distance").inner_text() == words["distance"]

    # Back to the program (Shift+Tab), to its last line; up one, indented one level.
    line, indent = program[-2]
    assert indent == 1
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("End")
    assert focused_code(page) == line
    page.keyboard.press("Alt+ArrowUp")
    assert live.inner_text().strip() == words["moved"].format(line=line)
    page.keyboard.press("ArrowRight")
    assert live.inner_text().strip() == words["indented"].format(line=line)
    assert focused_code(page) == line
    # The selects the form would post follow the lists.
    assert article.locator(".parsons-program li.parsons-line code").all_inner_texts() == [
        code for code, _ in program
    ]
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent.trim()") == words["check"]
    page.keyboard.press("Enter")
    feedback.get_by_text(words["correct"]).wait_for()


def answer_predict_output(v: Visitor) -> None:
    page, words = v.page, WORDS[v.lang]
    article = page.locator(f"#q-{PREDICT}")
    feedback = article.locator(".feedback")
    box = article.locator('textarea[name="printed"]')
    box.focus()
    page.keyboard.type("3.5\nTrue\n2.5")
    page.keyboard.press("ControlOrMeta+Enter")
    feedback.get_by_text(words["not_quite"]).wait_for()
    # The first try: the line that differs, not the expected output.
    assert feedback.locator("p.wrong-parts").inner_text() == f"{words['not_right']} 2.5"
    assert feedback.locator("table.side-by-side").count() == 0
    feedback.get_by_role("button", name=words["show_answer"]).click()
    table = feedback.locator("table.side-by-side")
    table.wait_for()
    # The button is gone; the focus is on what it showed.
    assert feedback.get_by_role("button").count() == 0
    assert page.evaluate("document.activeElement.classList.contains('compare')")
    rows = table.locator("tbody tr")
    assert rows.count() == 3
    assert rows.nth(0).locator("code").all_inner_texts() == ["3.5", "3.5"]
    differing = table.locator("tr.differs")
    assert differing.count() == 1
    assert differing.locator("code").all_inner_texts() == ["2.3333332538604736", "2.5"]

    box.focus()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.type("3.5\nTrue\n2.3333")
    page.keyboard.press("ControlOrMeta+Enter")
    feedback.get_by_text(words["correct"]).wait_for()
    assert feedback.locator("table.side-by-side").count() == 0


def audit_questions(page: Any, *question_ids: str) -> None:
    """axe-core on these questions as they are now (the widgets drawn, the feedback shown):
    no serious or critical violation."""
    inject_axe(page)
    found = page.evaluate(
        """async (selectors) => {
            const r = await axe.run({include: selectors.map((s) => [s])},
                                    {resultTypes: ["violations"]});
            return r.violations.filter((v) => ["serious", "critical"].includes(v.impact))
                .map((v) => ({id: v.id, help: v.help,
                              nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" "))}));
        }""",
        [f"#q-{question_id}" for question_id in question_ids],
    )
    assert not found, json.dumps(found, indent=2)


def test_ordering_by_keyboard_and_predicting_output(visitor_factory) -> None:  # type: ignore[no-untyped-def]
    v: Visitor = visitor_factory("en")
    sign_up(v, unique("kinds"), audit=False)
    v.go(f"/lessons/{LESSON}")
    answer_ordering_by_keyboard(v)
    answer_predict_output(v)
    audit_questions(v.page, ORDERING, PREDICT)
    v.shot("new-kinds", v.page.locator(f"#q-{ORDERING}"))
    assert not v.errors  # type: ignore[attr-defined]
