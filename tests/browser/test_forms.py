"""Forms and messages in a real browser (issue 11, points 13 and 16): sign-up keeps what was
typed and names the field and the rule once; "Alice" signs up and logs in as "alice"; the
class page's join link is a link with a working copy button; a past due date takes an
explicit tick; removing an assignment asks first. axe audits the pages, in both languages."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from tests.browser.conftest import PASSWORD, VisitorFactory, create_teacher, unique
from tests.browser.test_teacher import log_in
from tests.processes import Web

WORDS = {
    "en": {"too_long": "Password: use at most 1024 characters (this has 5000)."},
    "tr": {"too_long": "Parola: en çok 1024 karakter kullanın (bunda 5000 var)."},
}


@pytest.mark.parametrize("lang", ["en", "tr"])
def test_signup_keeps_what_was_typed_and_names_the_rule_once(
    visitor_factory: VisitorFactory, lang: str
) -> None:
    v = visitor_factory(lang)
    page = v.go("/signup")
    name = unique("Alice")
    page.fill("#username", name)
    page.fill("#password", "x" * 5000)
    page.locator("main form button[type=submit]").click()
    page.wait_for_load_state()
    v.expect_language()
    assert page.locator("#password-error").inner_text() == WORDS[lang]["too_long"]
    assert page.locator("#password-help").count() == 0  # the rule is said once
    assert page.locator("#username").input_value() == name  # kept, capitals and all
    assert page.locator("#password").input_value() == ""  # never the password
    assert page.locator("#username-error").count() == 0  # "Alice" is fine
    v.audit("signup-refused")

    page.fill("#password", PASSWORD)
    page.locator("main form button[type=submit]").click()
    page.wait_for_url(v.base + "/")
    assert name.lower() in page.locator("header.site").inner_text()
    page.locator("header.site form[action='/logout'] button").click()
    page.wait_for_load_state()
    log_in(v, name.upper())  # log-in reads capitals as lowercase too


def test_class_page_link_copy_past_due_and_confirmed_removal(
    visitor_factory: VisitorFactory, server: Web
) -> None:
    teacher_name = unique("teach")
    create_teacher(server, teacher_name)
    v = visitor_factory("en")
    v.page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=v.base)
    log_in(v, teacher_name)
    page = v.go("/classes")
    page.fill("#class-name", f"Forms {unique('')}")
    page.locator("form[action='/classes'] button[type=submit]").click()
    page.wait_for_url(re.compile(r"/classes/\d+$"))
    class_path = page.url.removeprefix(v.base)

    link = page.locator("#join-url")
    href = link.get_attribute("href")
    assert href and re.search(r"/join/[A-Z0-9]{8}$", href)
    copy = page.get_by_role("button", name="Copy link")
    copy.click()
    page.wait_for_function("() => document.querySelector('.copy-status').textContent !== ''")
    assert page.locator(".copy-status").inner_text() == "Link copied"
    assert page.evaluate("() => navigator.clipboard.readText()") == href

    past = (datetime.now(UTC) - timedelta(days=2)).strftime("%Y-%m-%d")
    page.select_option("#assign-lesson", "tensor-basics")
    page.fill("#assign-due", past)
    page.locator(".assign-form button[type=submit]").click()
    page.wait_for_load_state()
    error = page.locator("#assign-due-error").inner_text()
    assert error.startswith(f"Due date: {past} has passed")
    assert page.locator("#assign-due").input_value() == past
    v.audit("class-past-due")
    page.get_by_label("Set it anyway").check()
    page.locator(".assign-form button[type=submit]").click()
    page.wait_for_url(re.compile(class_path + r"#assignments$"))
    assert page.locator(".assignment-table").count() == 1

    remove = page.locator(".assignment-table a", has_text="Remove")
    remove.click()
    page.wait_for_url(re.compile(r"/assignments/tensor-basics/remove$"))
    assert "Remove the assignment" in page.locator("h1").inner_text()
    v.audit("confirm-removal")
    page.get_by_role("link", name="Cancel").click()
    page.wait_for_url(re.compile(class_path + r"#assignments$"))
    assert page.locator(".assignment-table").count() == 1  # cancelling changed nothing
    page.locator(".assignment-table a", has_text="Remove").click()
    page.get_by_role("button", name="Yes, remove").click()
    page.wait_for_url(re.compile(class_path + r"#assignments$"))
    assert page.locator(".assignment-table").count() == 0
    assert not v.errors  # type: ignore[attr-defined]
