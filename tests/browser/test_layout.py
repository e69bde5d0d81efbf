"""No page scrolls sideways, on a phone (390x844) or a laptop (1366x900): every kind of page
(the catalog as a visitor, a student and a teacher; every lesson in both languages with a
history, a wrong output's comparison and a sample solution; the account; the classes list;
a class with a student and assignments; the progress grid; the drill-down; the insight;
joining; logging in and signing up) is at most as wide as the window. Wide things (code,
output, tables) scroll inside themselves.

Also how the lesson and home pages lay things out: a question's prompt wraps as one text;
the sample solution is coloured like the editor's code; try-out runs are listed apart from
graded submissions and long lists fold; the home page's tracks use the width and give each
lesson its length and the student's progress; the favicon."""

from __future__ import annotations

import re
from typing import Any

from app.config import REPO_ROOT
from tests.browser.conftest import (
    VisitorFactory,
    create_teacher,
    log_in,
    playwright_api,
    sign_up,
    unique,
)
from tests.processes import Web

VIEWPORTS = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1366, "height": 900}}
LESSONS = REPO_ROOT / "exercises" / "lessons"
LONG_LINE = "print('a line of output far wider than any phone: ' + 'x' * 200)\n"

# The elements that stick out of the window, outermost first, none inside a scroll box:
# what the failure message names, so that it says where to look.
OVERFLOWING = """() => {
  const width = document.documentElement.clientWidth;
  const scrolls = (e) => ["auto", "scroll"].includes(getComputedStyle(e).overflowX);
  const found = [];
  for (const e of document.body.querySelectorAll("*")) {
    const box = e.getBoundingClientRect();
    if (box.right <= width + 0.5) continue;
    let p = e.parentElement, inside = false;
    while (p && p !== document.body) {
      if (scrolls(p) || found.includes(p)) { inside = true; break; }
      p = p.parentElement;
    }
    if (!inside) found.push(e);
  }
  const name = (e) => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "")
    + [...e.classList].map((c) => "." + c).join("");
  return found.slice(0, 6).map((e) =>
    `${e.closest("[class]:not(:scope)") ? name(e.parentElement.closest("[class]")) + " " : ""}`
    + `${name(e)} right=${Math.round(e.getBoundingClientRect().right)}`);
}"""


def lesson_slugs() -> list[str]:
    return sorted(p.name for p in LESSONS.iterdir() if p.is_dir())


def call_api(page: Any, method: str, path: str, body: Any = None) -> Any:
    return page.evaluate(
        """async ([method, path, body]) => {
            const headers = {"Accept": "application/json",
                "X-CSRF-Token": document.querySelector('meta[name="csrf-token"]').content};
            if (body !== null) headers["Content-Type"] = "application/json";
            const r = await fetch(path, {method, headers,
                body: body === null ? undefined : JSON.stringify(body)});
            return {status: r.status, data: await r.json()};
        }""",
        [method, path, body],
    )


def grade(page: Any, exercise_id: str, code: str, *, mode: str) -> None:
    """Submits (or tries out) code through the API and waits for its verdict."""
    path = "runs" if mode == "run" else "submissions"
    answer = call_api(page, "POST", f"/api/exercises/{exercise_id}/{path}", {"code": code})
    assert answer["status"] in (200, 201, 202), answer
    submission = answer["data"]
    for _ in range(60):
        if submission["status"] not in ("queued", "running"):
            return
        submission = call_api(page, "GET", f"/api/submissions/{submission['id']}?wait=2")["data"]
    raise AssertionError(f"no verdict for {exercise_id}: {submission}")


def too_wide(page: Any, width: int) -> str | None:
    scroll_width = page.evaluate("() => document.documentElement.scrollWidth")
    if scroll_width <= width:
        return None
    return f"{scroll_width}px wide: {page.evaluate(OVERFLOWING)}"


def test_no_page_scrolls_sideways(visitor_factory: VisitorFactory, server: Web) -> None:
    slugs = lesson_slugs()
    assert len(slugs) >= 10, slugs
    anonymous = visitor_factory("en")
    student = visitor_factory("en")
    teacher = visitor_factory("en")

    teacher_name = unique("teach")
    create_teacher(server, teacher_name)
    log_in(teacher, teacher_name)
    page = teacher.go("/classes")
    page.fill("#class-name", f"A class with a rather long name for a phone {unique('')}")
    page.locator("form[action='/classes'] button[type=submit]").click()
    page.wait_for_url(re.compile(r"/classes/\d+$"))
    class_path = page.url.removeprefix(teacher.base)
    for slug in ("tensor-basics", "reshaping-and-broadcasting"):
        page.select_option("#assign-lesson", slug)
        page.locator("form.assign-form button[type=submit]").click()
        page.wait_for_url(re.compile(r"/classes/\d+#assignments$"))
    join_code = page.locator(".join-code.big").inner_text().strip()

    student_name = unique("a-student-with-a-long-name-")[:32]
    sign_up(student, student_name, audit=False)
    page = student.go("/classes")
    page.fill("#join-code", join_code)
    page.locator("form[action='/join'] button[type=submit]").click()
    page.wait_for_url(re.compile(r"/#assignments$"))

    # A history on the first lesson: a wrong output (its side-by-side comparison), a
    # try-out run, and a sample solution after giving up.
    page = student.go("/lessons/tensor-basics")
    exercises = page.locator("article.exercise").evaluate_all(
        "(articles) => articles.map((a) => a.dataset.exercise)"
    )
    grade(page, exercises[0], LONG_LINE, mode="grade")
    grade(page, exercises[0], LONG_LINE, mode="run")
    assert call_api(page, "POST", f"/api/exercises/{exercises[0]}/give-up")["status"] == 200
    question = page.locator("article.question").first
    question.locator("input[name=answer]").first.check()
    question.get_by_role("button").first.click()
    question.locator(".feedback .verdict").wait_for()

    page = teacher.go(class_path + "/progress")
    page.locator("table.grid tbody tr", has_text=student_name).locator("td.c a").first.click()
    page.wait_for_url(re.compile(r"/students/\d+/lessons/tensor-basics$"))
    drilldown = page.url.removeprefix(teacher.base)

    visits: list[tuple[Any, str]] = [
        (anonymous, "/"),
        (anonymous, "/login"),
        (anonymous, "/signup"),
        (anonymous, "/lessons/tensor-basics"),
        (anonymous, f"/join/{join_code}"),
        (student, "/"),
        (student, "/account"),
        (student, "/classes"),
        *[(student, f"/lessons/{slug}?lang={lang}") for slug in slugs for lang in ("en", "tr")],
        (teacher, "/"),
        (teacher, "/account"),
        (teacher, "/classes"),
        (teacher, class_path),
        (teacher, class_path + "/progress"),
        (teacher, drilldown),
        (teacher, class_path + "/insight"),
        (teacher, "/classes/a-page-that-is-not-there"),
    ]
    failures = []
    for name, viewport in VIEWPORTS.items():
        for who in (anonymous, student, teacher):
            who.page.set_viewport_size(viewport)
        for who, path in visits:
            who.go(path)
            if problem := too_wide(who.page, viewport["width"]):
                failures.append(f"{name} {path}: {problem}")
    assert not failures, "pages wider than the window:\n" + "\n".join(failures)
    assert not anonymous.errors and not student.errors and not teacher.errors  # type: ignore[attr-defined]


# Where each line of a prompt's text after its first begins, from the prompt's left edge.
CONTINUATION_LINES = """(heading) => {
  const box = heading.getBoundingClientRect();
  const left = box.left + parseFloat(getComputedStyle(heading).paddingLeft);
  const walker = document.createTreeWalker(heading, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  const starts = [];
  for (let node; (node = walker.nextNode()); ) {
    if (node.parentElement.closest(".number") || !node.textContent.trim()) continue;
    range.selectNodeContents(node);
    const lines = [...range.getClientRects()].slice(1);
    starts.push(...lines.map((line) => Math.round(line.left - left)));
  }
  return starts;
}"""


def test_a_prompt_with_inline_code_wraps_as_one_text(visitor_factory: VisitorFactory) -> None:
    """The words after a prompt's inline code go on wrapping from the prompt's left edge,
    never in a column of their own beside the code."""
    visitor = visitor_factory("en")
    for name, viewport in VIEWPORTS.items():
        visitor.page.set_viewport_size(viewport)
        page = visitor.go("/lessons/tensor-basics")
        prompt = page.locator("article.question h3", has_text="Complete the line so that")
        assert prompt.locator("code").count() >= 1
        starts = prompt.evaluate(CONTINUATION_LINES)
        assert all(start == 0 for start in starts), (name, starts)
        if name == "phone":
            assert starts, "the prompt is meant to wrap at a phone's width"


def test_the_sample_solution_is_coloured_as_the_editor_colours_code(
    visitor_factory: VisitorFactory,
) -> None:
    visitor = visitor_factory("en")
    sign_up(visitor, unique("sol"), audit=False)
    page = visitor.go("/lessons/tensor-basics")
    exercise = page.locator("article.exercise").first
    keyword_colour = "(e) => getComputedStyle(e).color"
    in_editor = exercise.locator(".cm-content .tok-keyword").first.evaluate(keyword_colour)
    exercise.locator("details.give-up summary").click()
    exercise.locator("details.give-up button").click()
    solution = exercise.locator("section.solution pre code")
    for shown in ("after giving up", "on the page drawn again"):
        keyword = solution.locator(".tok-keyword").first
        assert keyword.inner_text() in ("import", "from", "for", "def"), shown
        assert keyword.evaluate(keyword_colour) == in_editor != "rgb(27, 31, 36)", shown
        assert solution.locator(".tok-number, .tok-string, .tok-function").count() > 0, shown
        page = visitor.go("/lessons/tensor-basics")
        exercise = page.locator("article.exercise").first
        solution = exercise.locator("section.solution pre code")
    visitor.audit("lesson-with-solution")


def test_try_outs_are_listed_apart_from_graded_submissions_and_long_lists_fold(
    visitor_factory: VisitorFactory,
) -> None:
    visitor = visitor_factory("en")
    sign_up(visitor, unique("hist"), audit=False)
    page = visitor.go("/lessons/tensor-basics")
    exercise_id = page.locator("article.exercise").first.get_attribute("data-exercise")
    for number in range(5):
        grade(page, exercise_id, f"print({number})\n", mode="run" if number == 2 else "grade")
    page = visitor.go("/lessons/tensor-basics")
    history = page.locator(f"#exercise-{exercise_id} section.history")
    graded = history.locator(".graded-attempts")
    try_outs = history.locator("details.try-outs")
    # "Your submissions": the four graded, the newest three in view, one behind "Show 1 more".
    assert graded.locator("details.submission").count() == 4
    assert graded.locator("details.mode-run").count() == 0
    assert graded.locator(":scope > ol.attempts > li").count() == 3
    more = graded.locator("details.more-attempts")
    assert more.locator(":scope > summary").inner_text() == "Show 1 more"
    assert not more.locator("details.submission").first.is_visible()
    more.locator(":scope > summary").click()
    assert more.locator("details.submission").first.is_visible()
    # Try-outs: their own list, folded (the newest of all is a graded one).
    assert try_outs.locator("details.submission.mode-run").count() == 1
    assert "(1)" in try_outs.locator(":scope > summary").inner_text()
    assert not try_outs.locator("details.submission").first.is_visible()
    visitor.audit("lesson-history")

    # A try-out from the editor joins its list, live; the graded list stays as it was.
    exercise = page.locator(f"#exercise-{exercise_id}")
    exercise.locator(".cm-content").click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.press("Delete")
    page.keyboard.insert_text("print('tried')\n")
    exercise.locator("button.run").click()
    exercise.locator(".live.live-run .verdict-line").wait_for()
    playwright_api.expect(try_outs.locator("details.submission")).to_have_count(2)
    assert "(2)" in try_outs.locator(":scope > summary").inner_text()
    assert graded.locator("details.submission").count() == 4
    assert graded.locator(":scope > ol.attempts > li").count() == 3
    # The "Show 1 more" the student opened stays open.
    assert graded.locator("details.more-attempts details.submission").first.is_visible()


def test_the_home_page_uses_the_width_and_gives_each_lessons_length_and_progress(
    visitor_factory: VisitorFactory,
) -> None:
    visitor = visitor_factory("en")
    page = visitor.go("/")
    first_track = page.locator("section.track").first.locator("li.lesson-card")
    for name, viewport in VIEWPORTS.items():
        page.set_viewport_size(viewport)
        boxes = [first_track.nth(i).bounding_box() for i in range(first_track.count())]
        tops = {round(box["y"]) for box in boxes}
        if name == "desktop":  # one row, across most of the window
            assert len(boxes) == 4 and len(tops) == 1, boxes
            assert boxes[-1]["x"] + boxes[-1]["width"] - boxes[0]["x"] > 0.8 * viewport["width"]
        else:  # one above the other
            assert len(tops) == len(boxes), boxes
    length = first_track.first.locator(".length").inner_text()
    counts = re.fullmatch(r"(\d+) questions · (\d+) exercises?", length)
    assert counts, length
    icon = page.locator("link[rel=icon]").get_attribute("href")
    answer = page.request.get(icon)
    assert answer.ok and answer.headers["content-type"].startswith("image/svg+xml")
    assert "<svg" in answer.text()

    sign_up(visitor, unique("home"), audit=False)
    page = visitor.go("/lessons/tensor-basics")
    question = page.locator("article.question").first
    question.locator("input[name=answer]").first.check()
    question.get_by_role("button").first.click()
    question.locator(".feedback .verdict").wait_for()
    right = question.locator(".feedback .verdict.right").count()
    page = visitor.go("/")
    card = page.locator("section.track").first.locator("li.lesson-card").first
    assert card.locator(".progress small").inner_text() == (
        f"{right}/{counts[1]} questions · 0/{counts[2]} exercises"
    )
    visitor.audit("home-with-progress")
