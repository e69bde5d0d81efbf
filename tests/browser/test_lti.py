"""A refused LTI launch in a real browser (issue 14): the page says what was wrong, in the
visitor's language, and passes axe."""

from __future__ import annotations

import pytest

from tests.browser.conftest import VisitorFactory

WORDS = {
    "en": ("The launch did not work", "No platform 'https://lms.example' is registered"),
    "tr": ("Başlatma olmadı", "Bu araçta 'https://lms.example' platformu kayıtlı değil."),
}


@pytest.mark.parametrize("lang", ["en", "tr"])
def test_a_refused_launch_says_why(visitor_factory: VisitorFactory, lang: str) -> None:
    v = visitor_factory(lang)
    page = v.go("/lti/login?iss=https%3A%2F%2Flms.example&login_hint=someone")
    v.expect_language()
    heading, reason = WORDS[lang]
    assert page.locator("main h1").inner_text() == heading
    assert reason in page.locator("main [role=alert]").inner_text()
    v.audit("lti-refused")
