"""The Content-Security-Policy in Chromium: every main page (the catalog, a lesson with its
editor, sign-up, the account page, a teacher's class page, grid and insight, /docs) comes
with the policy and breaks none of it, and what the policy could break still works: the
editor runs code, the bars keep their widths without style attributes, Swagger UI renders."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.browser.conftest import PASSWORD, Visitor, create_teacher, sign_up, unique
from tests.processes import Web

CODE = "import torch\nprint(torch.ones(2).sum())\n"
# Every violation the page's document sees, reported out of the page as it happens (a
# binding survives navigations; the listener is added before any of the page's scripts).
REPORT_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (e) => {
  const where = `${e.sourceFile}:${e.lineNumber}`;
  window.reportViolation(`${e.violatedDirective} ${e.blockedURI} at ${where}`);
});
"""


@dataclass
class Watcher:
    """Makes visitors whose CSP violations, as events and as console messages, are kept."""

    visitor_factory: Callable[[str], Visitor]
    violations: list[str] = field(default_factory=list)

    def visitor(self) -> Visitor:
        visitor = self.visitor_factory("en")
        context, page = visitor.page.context, visitor.page
        context.expose_binding("reportViolation", self._report)
        context.add_init_script(REPORT_VIOLATIONS)
        page.on("console", lambda message: self._console(page.url, message.text))
        return visitor

    def _report(self, source: dict[str, Any], text: str) -> None:
        self.violations.append(f"{source['page'].url}: {text}")

    def _console(self, url: str, text: str) -> None:
        if "Content Security Policy" in text:
            self.violations.append(f"{url}: {text}")


@pytest.fixture
def watcher(visitor_factory: Callable[[str], Visitor]) -> Watcher:
    return Watcher(visitor_factory)


def visit(v: Visitor, path: str) -> Any:
    """Open a page; it must come with the policy (so that no violation means something)."""
    response = v.page.goto(v.base + path)
    assert response is not None and response.ok, path
    policy = response.headers.get("content-security-policy", "")
    assert "script-src 'self'" in policy and "object-src 'none'" in policy, (path, policy)
    assert "'unsafe-eval'" not in policy, path
    if path != "/docs":
        assert "'unsafe-inline'" not in policy, (path, policy)
    v.page.wait_for_load_state("networkidle")
    return v.page


def assert_bars_drawn(page: Any) -> int:
    """Every bar with a width class is drawn that share of its track."""
    bars = page.evaluate(
        """() => [...document.querySelectorAll('[class*="pct-"]')].map((el) => ({
            pct: Number([...el.classList].find((c) => c.startsWith("pct-")).slice(4)),
            width: el.getBoundingClientRect().width,
            track: el.parentElement.clientWidth,
            last: el === el.parentElement.lastElementChild,
        }))"""
    )
    for bar in bars:
        expected = bar["track"] * bar["pct"] / 100
        if bar["last"] and bar["pct"] < 100:  # a class's last segment fills the rest
            assert bar["width"] >= expected - 1.5, bar
        else:
            assert abs(bar["width"] - expected) <= 1.5, bar
    return len(bars)


def log_in(v: Visitor, username: str) -> None:
    page = visit(v, "/login")
    page.fill("#username", username)
    page.fill("#password", PASSWORD)
    page.locator("main form button[type=submit]").click()
    page.wait_for_url(v.base + "/")


def test_no_page_breaks_the_content_security_policy(watcher: Watcher, server: Web) -> None:
    teacher_name = unique("cspt")
    create_teacher(server, teacher_name)
    teacher = watcher.visitor()
    log_in(teacher, teacher_name)
    page = visit(teacher, "/classes")
    page.fill("#class-name", unique("CSP class "))
    page.locator("form[action='/classes'] button[type=submit]").click()
    page.wait_for_url(re.compile(r"/classes/\d+$"))
    class_path = page.url.removeprefix(teacher.base)
    page.select_option("#assign-lesson", "tensor-basics")
    page.locator("form.assign-form button[type=submit]").click()
    page.wait_for_url(re.compile(r"/classes/\d+#assignments$"))
    join_code = page.locator(".join-code.big").inner_text().strip()

    student = watcher.visitor()
    visit(student, "/signup")
    sign_up(student, unique("csps"), audit=False)
    page = visit(student, "/classes")
    page.fill("#join-code", join_code)
    page.locator("form[action='/join'] button[type=submit]").click()
    page.wait_for_url(re.compile(r"/#assignments$"))

    # The lesson: the editor is styled (CodeMirror's styles are not inline ones) and runs code.
    page = visit(student, "/lessons/tensor-basics")
    exercise = page.locator("article.exercise").first
    editor = exercise.locator(".cm-editor")
    assert editor.evaluate("(el) => getComputedStyle(el).display") == "flex"
    exercise.locator(".cm-content").click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(CODE)
    assert "torch.ones(2).sum()" in exercise.locator(".cm-content").inner_text()
    page.keyboard.press("ControlOrMeta+Enter")
    exercise.locator(".live .verdict-line").wait_for()
    question = page.locator("article.question").first
    question.locator("input[name=answer]").first.check()
    question.get_by_role("button").click()
    question.locator(".feedback .verdict").wait_for()

    page = visit(student, "/")
    assert page.locator(".progress .bar span").count() >= 1
    assert assert_bars_drawn(page) >= 1
    visit(student, "/account")

    visit(teacher, class_path)
    visit(teacher, class_path + "/progress")
    page = visit(teacher, class_path + "/insight")
    assert page.locator(".stack-bar .seg").count() >= 1
    assert assert_bars_drawn(page) >= 1

    # Swagger UI from the app's own files: it renders the operations and expands one.
    page = visit(teacher, "/docs")
    operations = page.locator(".opblock")
    operations.first.wait_for()
    assert operations.count() > 10
    page.locator(".opblock-summary").first.click()
    page.locator(".opblock-body").first.wait_for()
    page.wait_for_load_state("networkidle")

    assert watcher.violations == [], "\n".join(watcher.violations)
    assert not teacher.errors and not student.errors  # type: ignore[attr-defined]
