"""One lesson of each level of the course (exercises/tracks.yaml), walked in a real browser
in English and in Turkish: every question on the page answered wrong and then right (the
three lessons together hold all five question kinds), every practice task submitted once
with its starter code (wrong) and once with the sample solution in the page's language
(passed); on the Turkish pages no English interface text; axe clean throughout."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.config import REPO_ROOT
from tests.browser.conftest import Visitor, VisitorFactory, playwright_api, sign_up, unique
from tests.browser.test_question_kinds import add_line, audit_questions, written
from tests.browser.test_quiz_feedback import check
from tests.browser.test_student import set_code

LESSONS_DIR = REPO_ROOT / "exercises" / "lessons"
# One lesson per level; together they hold every question kind.
WALKED = {
    "beginner": "tensor-basics",
    "intermediate": "tensors-on-the-gpu",
    "advanced": "timing-gpu-work",
}
KINDS = {"multiple_choice", "fill_in", "matching", "ordering", "predict_output"}
WORDS = {
    "en": {
        "correct": "Correct.",
        "not_quite": "Not quite.",
        "show_answer": "Show the answer",
        "passed": "Passed",
    },
    "tr": {
        "correct": "Doğru.",
        "not_quite": "Tam değil.",
        "show_answer": "Cevabı göster",
        "passed": "Geçti",
    },
}
# Interface words of the English pages that must never show on a Turkish one (the lesson
# content quotes code and error messages in English: those sit in <code>/<pre>, left out).
ENGLISH_INTERFACE = [
    "Check yourself",
    "Show the answer",
    "Not quite.",
    "Correct.",
    "Submit",
    "Run",
    "Passed",
    "Wrong output",
    "Sample solution",
    "Your submissions",
    "Practice",
    "Questions",
    "Hint",
    "Log out",
    "Lessons",
    "Account",
    "Prerequisites",
    "Level",
    "Beginner",
    "Intermediate",
    "Advanced",
]


def questions(lesson: str) -> list[dict[str, Any]]:
    return list(yaml.safe_load((LESSONS_DIR / lesson / "questions.yaml").read_text())["questions"])


def exercises(lesson: str) -> list[Path]:
    return sorted(p for p in (LESSONS_DIR / lesson / "exercises").iterdir() if p.is_dir())


def test_the_walked_lessons_cover_every_question_kind() -> None:
    assert {q["kind"] for lesson in WALKED.values() for q in questions(lesson)} == KINDS
    levels = {
        track["level"]: track["lessons"]
        for track in yaml.safe_load((REPO_ROOT / "exercises" / "tracks.yaml").read_text())["tracks"]
    }
    for level, lesson in WALKED.items():
        assert lesson in levels[level]


def on_cpu(text: str) -> str:
    """The browser tests' server grades on the CPU: device placeholders say so."""
    return text.replace("{device_type}", "cpu").replace("{device}", "cpu")


def answer(article: Any, question: dict[str, Any], *, right: bool) -> None:
    page = article.page
    kind = question["kind"]
    if kind == "multiple_choice":
        correct = set(question["correct"])
        boxes = article.locator('input[type="radio"], input[type="checkbox"]')
        for index in range(boxes.count()):
            chosen = index in correct if right else index == min(set(range(9)) - correct)
            if chosen:
                boxes.nth(index).check()
            elif boxes.nth(index).get_attribute("type") == "checkbox":
                boxes.nth(index).uncheck()
        check(article)
    elif kind == "fill_in":
        blanks = article.locator('input[name="blank"]')
        for index, blank in enumerate(question["blanks"]):
            value = blank.get("answer", blank["accepted"][0])
            blanks.nth(index).fill(value if right else "nothing like it")
        check(article)
    elif kind == "matching":
        pairs = [(pair["left"], pair["right"]) for pair in question["pairs"]]
        if not right:  # the first two rows swapped
            (a, x), (b, y) = pairs[0], pairs[1]
            pairs[:2] = [(a, y), (b, x)]
        for left, right_side in pairs:
            article.get_by_label(left, exact=True).select_option(label=right_side)
        check(article)
    elif kind == "ordering":
        order_lines(article, question, right=right)
    else:  # predict_output
        box = article.locator('textarea[name="printed"]')
        box.fill(on_cpu(question["expected"]).rstrip("\n") if right else "nothing\nlike it")
        box.focus()
        page.keyboard.press("ControlOrMeta+Enter")


def order_lines(article: Any, question: dict[str, Any], *, right: bool) -> None:
    """By keyboard: the program emptied back into the pool, then the lines added (reversed
    for a wrong order) and indented as written."""
    page = article.page
    program = article.locator(".parsons-program li.parsons-line")
    if program.count():
        program.first.focus()
        while program.count():
            page.keyboard.press("Delete")
    lines = [line for line in question["lines"] if not line.get("distractor")]
    if not right:
        lines.reverse()
    pool = article.locator(".parsons-pool")
    for line in lines:
        pool.locator('li.parsons-line[tabindex="0"]').focus()
        add_line(page, pool, line["code"])
    for index, line in enumerate(lines):
        if line.get("indent"):
            program.nth(index).focus()
            for _ in range(line["indent"]):
                page.keyboard.press("ArrowRight")
    assert program.locator("code").all_inner_texts() == [line["code"] for line in lines]
    article.get_by_role("button", name=re.compile(r"^(Check|Kontrol et)$")).click()


def answer_every_question(v: Visitor, lesson: str) -> None:
    words = WORDS[v.lang]
    for question in questions(lesson):
        asked = written(question["id"], v.lang, lesson)
        article = v.page.locator(f"#q-{question['id']}")
        feedback = article.locator(".feedback")
        answer(article, asked, right=False)
        feedback.get_by_text(words["not_quite"]).wait_for()
        # Another try before the answer is revealed, and the answer one click away.
        assert feedback.locator("p.the-answer").count() == 0
        assert feedback.get_by_role("button", name=words["show_answer"]).count() == 1
        answer(article, asked, right=True)
        feedback.get_by_text(words["correct"]).wait_for()
    audit_questions(v.page, *(q["id"] for q in questions(lesson)))


def in_language(folder: Path, stem: str, lang: str) -> str:
    """The task's file in `lang` (solution.tr.py), or the English one where the code needs no
    translation (the page falls back to it too)."""
    translated = folder / f"{stem}.{lang}.py"
    return (translated if translated.exists() else folder / f"{stem}.py").read_text()


def submit_every_task(v: Visitor, lesson: str) -> None:
    words = WORDS[v.lang]
    for folder in exercises(lesson):
        exercise = v.page.locator(f"#exercise-{folder.name}")
        verdict = exercise.locator(".live.live-grade .verdict-line")
        # The editor starts with the starter code in the page's language: sent as it is.
        starter = in_language(folder, "starter", v.lang)
        assert starter.strip().splitlines()[0] in exercise.locator(".cm-content").inner_text()
        exercise.locator("button.submit").click()
        exercise.locator(".live.live-grade .verdict-line.wrong").wait_for(timeout=90_000)
        assert words["passed"] not in verdict.inner_text()

        set_code(v, exercise, in_language(folder, "solution", v.lang))
        exercise.locator("button.submit").click()
        exercise.locator(".live.live-grade .verdict-line.right").wait_for(timeout=90_000)
        assert words["passed"] in verdict.inner_text()
        playwright_api.expect(exercise.locator("section.history ol.attempts > li")).to_have_count(2)


def english_interface(v: Visitor) -> list[str]:
    """The known English interface words on the page, code and text marked as English
    (lang="en") left out."""
    text = v.page.evaluate(
        """() => {
            const copy = document.body.cloneNode(true);
            copy.querySelectorAll('code, pre, .cm-editor, textarea, [lang="en"], script')
                .forEach((n) => n.remove());
            return copy.innerText;
        }"""
    )
    return [
        words
        for words in ENGLISH_INTERFACE
        if re.search(rf"(?<![\w'’]){re.escape(words)}(?![\w'’])", text)
    ]


def expect_interface_language(v: Visitor, where: str) -> None:
    """Turkish pages: none of the English words. English pages: some of them, which shows
    the list and the search would find them."""
    found = english_interface(v)
    if v.lang == "tr":
        assert not found, f"English on the Turkish {where}: {found}"
    else:
        assert len(found) >= 3, f"the English {where} shows only {found}"


@pytest.mark.parametrize("lang", ["en", "tr"])
def test_one_lesson_of_each_level(visitor_factory: VisitorFactory, lang: str) -> None:
    v = visitor_factory(lang)
    sign_up(v, unique("walk"), audit=False)
    for level, lesson in WALKED.items():
        v.go(f"/lessons/{lesson}")
        v.expect_language()
        expect_interface_language(v, f"{level} lesson")
        v.audit(f"walk-{level}")
        answer_every_question(v, lesson)
        submit_every_task(v, lesson)
        expect_interface_language(v, f"{level} lesson, answered")
        v.audit(f"walk-{level}-done")
    v.go("/")
    expect_interface_language(v, "catalog")
    for lesson in WALKED.values():
        card = v.page.locator(f'li.lesson-card:has(a[href="/lessons/{lesson}"])')
        assert "done" in (card.get_attribute("class") or "")
    assert not v.errors  # type: ignore[attr-defined]


def tracks_in_order() -> list[dict[str, Any]]:
    return list(yaml.safe_load((REPO_ROOT / "exercises" / "tracks.yaml").read_text())["tracks"])


def lesson_title(slug: str, lang: str) -> str:
    lesson = yaml.safe_load((LESSONS_DIR / slug / "lesson.yaml").read_text())
    return str(lesson.get("translations", {}).get(lang, {}).get("title", lesson["title"]))


PATH_WORDS: dict[str, dict[str, Any]] = {
    "en": {
        "path": "The course, level by level",
        "step": "Level {number} of 3: {level}",
        "levels": {"beginner": "Beginner", "intermediate": "Intermediate", "advanced": "Advanced"},
        "start": "Start here",
        "before": "Before this: {lessons}",
    },
    "tr": {
        "path": "Kurs, seviye seviye",
        "step": "Seviye {number} / 3: {level}",
        "levels": {"beginner": "Başlangıç", "intermediate": "Orta", "advanced": "İleri"},
        "start": "Buradan başlayın",
        "before": "Bundan önce: {lessons}",
    },
}


def connector(card: Any) -> str:
    """The line drawn before a lesson card (its ::before), or "none"."""
    return str(card.evaluate("(li) => getComputedStyle(li, '::before').content"))


@pytest.mark.parametrize("lang", ["en", "tr"])
def test_the_catalog_shows_the_course_as_a_path(visitor_factory: VisitorFactory, lang: str) -> None:
    v, words = visitor_factory(lang), PATH_WORDS[lang]
    sign_up(v, unique("path"), audit=False)
    page = v.go("/")
    path = page.get_by_role("list", name=words["path"])
    levels = path.locator(":scope > li")
    tracks = tracks_in_order()
    assert levels.count() == len(tracks) == 3
    number = 0
    for index, track in enumerate(tracks):
        level = levels.nth(index)
        # As written (the badge shows it in capitals).
        assert level.locator(".path-step .level").text_content() == words["step"].format(
            number=index + 1, level=words["levels"][track["level"]]
        )
        cards = level.locator("ol.lessons > li.lesson-card")
        assert cards.count() == len(track["lessons"])
        for position, slug in enumerate(track["lessons"]):
            number += 1
            card = cards.nth(position)
            assert card.locator(".lesson-number").inner_text() == str(number)
            assert card.locator("h3").inner_text() == lesson_title(slug, lang)
            prerequisites = yaml.safe_load((LESSONS_DIR / slug / "lesson.yaml").read_text())[
                "prerequisites"
            ]
            expected = (
                words["before"].format(
                    lessons=", ".join(lesson_title(s, lang) for s in prerequisites)
                )
                if prerequisites
                else words["start"]
            )
            assert card.locator(".prerequisites").inner_text() == expected
            # Progress on every card of a signed-in student, none of it done yet.
            assert card.locator(".progress small").inner_text().startswith("0/")
    assert number >= 12
    for name, viewport in {"desktop": (1366, 900), "phone": (390, 844)}.items():
        page.set_viewport_size({"width": viewport[0], "height": viewport[1]})
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport[0]
        assert connector(levels.nth(0)) == "none"
        assert connector(levels.nth(1)) != "none"
        cards = levels.nth(0).locator("li.lesson-card")
        assert connector(cards.nth(0)) == "none"
        assert connector(cards.nth(1)) != "none"
        v.shot(f"course-path-{name}")
    v.audit("course-path")
    assert not v.errors  # type: ignore[attr-defined]
