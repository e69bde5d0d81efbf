"""Without JavaScript too, an answer given while logged out survives logging in or signing
up (issue 11, point 11): the plain form's Check leads to the log-in page, which says why and
offers signing up; after signing up the student is back at the question with the answer
filled in (kept on the server, app/quizzes/pending.py), presses Check and is told. In
English and in Turkish. axe audits the page the way back leads to (with scripts on: axe
needs them)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.browser.conftest import LOCALES, Visitor, audit, unique
from tests.browser.test_wayfinding import LESSON, MC, WORDS, sign_up_here
from tests.processes import Web


@pytest.fixture
def no_script(browser: Any, server: Web) -> Iterator[Any]:
    """A factory of pages in a browser whose JavaScript is switched off."""
    contexts: list[Any] = []

    def make(lang: str, *, scripts: bool = False) -> Any:
        context = browser.new_context(
            locale=LOCALES[lang],
            viewport={"width": 1200, "height": 900},
            base_url=server.url,
            java_script_enabled=scripts,
        )
        context.set_default_timeout(20_000)
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()


@pytest.mark.parametrize("lang", ["en", "tr"])
def test_an_answer_given_logged_out_without_javascript_comes_back(
    no_script: Any, server: Web, lang: str
) -> None:
    words = WORDS[lang]
    page = no_script(lang)
    page.goto(f"/lessons/{LESSON}")
    mc = page.locator(f"#q-{MC}")
    mc.locator('input[type="radio"]').nth(3).check()
    mc.locator("form.answer-form button[type=submit]").click()

    # The log-in page says why, and offers signing up with the same way back.
    page.wait_for_url(re.compile(r"/login\?"))
    query = parse_qs(urlsplit(page.url).query)
    assert query["why"] == ["answer"]
    back = query["next"][0]
    assert re.fullmatch(rf"/lessons/{LESSON}\?pending=[\w-]+#q-{MC}", back), back
    assert words["why_answer"] in page.locator("main .alert.arrival").inner_text()
    page.locator("main").get_by_role("link", name=words["create"]).click()
    page.wait_for_url(re.compile(r"/signup\?"))
    assert words["why_answer"] in page.locator("main .alert.arrival").inner_text()

    # The way back, opened with scripts on, reads well (axe) and is the same page.
    seen = no_script(lang, scripts=True)
    seen.goto(back)
    assert seen.locator(f"#q-{MC} input[type=radio]").nth(3).is_checked()
    audit(seen, f"{lang}:lesson-answer-kept-on-the-server")

    sign_up_here(Visitor(page=page, base=server.url, lang=lang, audited=[]), unique("nojs"))

    # Back at the question, logged in, the answer filled in again and waiting.
    page.wait_for_url(re.compile(rf"/lessons/{LESSON}\?pending=[\w-]+#q-{MC}$"))
    radios = page.locator(f"#q-{MC} input[type=radio]")
    assert radios.nth(3).is_checked()
    assert words["restored"] in page.locator(f"#q-{MC} .feedback").inner_text()
    page.locator(f"#q-{MC} form.answer-form button[type=submit]").click()
    page.wait_for_url(re.compile(rf"/lessons/{LESSON}#q-{MC}$"))
    assert words["correct"] in page.locator(f"#q-{MC} .feedback").inner_text()
