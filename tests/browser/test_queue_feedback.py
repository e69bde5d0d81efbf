"""A student in a queue sees it: while a submission waits in the graders' line, the page
shows its place and about how long it will wait; refused with 429 (backpressure), the page
counts down Retry-After and sends the same code again by itself.

The server's own answers are real but for two, rewritten on the way to the page (the
queue here is empty and a 429 takes a minute of submissions): the first poll says the
submission is third in line with 4.6 s to wait, and the first POST is a 429 with
Retry-After: 3. Before, the page showed no estimate and stopped at the 429 with "try
again"."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.browser.conftest import VisitorFactory, sign_up, unique

EXERCISE = "gpu-support-device-independent"
WORDS = {
    "en": {"estimate": "number 3 in line, about 5 s to wait", "retry": "sending yours again in"},
    "tr": {"estimate": "3. sıradasınız, yaklaşık 5 sn bekleme", "retry": "yeniden gönderilecek"},
}
# Every text the live status line shows, kept in order (a line may show for milliseconds).
RECORD_LINES = """(exercise) => {
    window.__lines = [];
    const live = document.querySelector(`#exercise-${exercise} .live`);
    new MutationObserver(() => {
        const text = live.querySelector(".live-line")?.textContent;
        if (text && window.__lines.at(-1) !== text) window.__lines.push(text);
    }).observe(live, {subtree: true, childList: true, characterData: true});
}"""


@pytest.mark.parametrize("lang", ["en", "tr"])
def test_queue_place_estimate_and_retry_after_429(
    visitor_factory: VisitorFactory, lang: str
) -> None:
    v = visitor_factory(lang)
    sign_up(v, unique("queue"), audit=False)
    page, words = v.go("/lessons/gpu-support"), WORDS[lang]
    posts: list[str] = []
    polls: list[str] = []

    def submissions(route: Any) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        posts.append(route.request.post_data or "")
        if len(posts) == 1:
            route.fulfill(
                status=429,
                headers={"Retry-After": "3"},
                content_type="application/json",
                body=json.dumps({"detail": "The grading queue is full; try again."}),
            )
        else:
            route.continue_()

    def poll(route: Any) -> None:
        polls.append(route.request.url)
        response = route.fetch()
        body = response.json()
        if len(polls) == 1:
            body |= {"status": "queued", "position": 3, "wait_estimate_s": 4.6, "runs": []}
        route.fulfill(response=response, json=body)

    page.route(f"**/api/exercises/{EXERCISE}/submissions", submissions)
    page.route("**/api/submissions/*?wait=*", poll)
    page.evaluate(RECORD_LINES, EXERCISE)
    exercise = page.locator(f"#exercise-{EXERCISE}")
    exercise.locator("button.submit").click()

    countdown = exercise.locator(".live .retry-line")
    countdown.wait_for()
    assert words["retry"] in countdown.inner_text()
    assert exercise.locator("button.submit").is_disabled()  # no second send meanwhile
    v.audit("retry-countdown")
    exercise.locator(".live .verdict-line").wait_for(timeout=30_000)

    assert len(posts) == 2 and posts[0] == posts[1]  # sent again, the same code
    lines: list[str] = page.evaluate("() => window.__lines")
    counted = [line for line in lines if words["retry"] in line]
    assert [n for n in "321" if any(f" {n} " in line for line in counted)] == list("321"), lines
    assert any(words["estimate"] in line for line in lines), lines
    assert not v.errors  # type: ignore[attr-defined]
