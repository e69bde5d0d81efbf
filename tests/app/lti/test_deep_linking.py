"""Deep Linking 2.0 against the independent platform (lti1p3platform, tests/app/lti/lms.py):
an instructor's LtiDeepLinkingRequest shows the catalog; the lessons and exercises picked
go back as a signed LtiDeepLinkingResponse that the platform verifies with the tool's
public keys, each an LTI resource link with a line item."""

from __future__ import annotations

import html
import re

import httpx

from app.lti import claims
from tests.app.lti.flow import RunningPlatform, launch

LESSON, EXERCISE = "tensor-basics", "tensor-basics-grid"


def _field(page: str, name: str) -> str:
    found = re.search(rf'name="{name}" value="([^"]*)"', page)
    assert found is not None, page
    return html.unescape(found.group(1))


async def _received(platform: RunningPlatform) -> list[dict[str, object]]:
    async with httpx.AsyncClient() as client:
        items: list[dict[str, object]] = (await client.get(f"{platform.url}/deep-links")).json()
        return items


async def test_an_instructor_picks_a_lesson_and_an_exercise_and_the_platform_gets_both(
    browser: httpx.AsyncClient, advantage: RunningPlatform
) -> None:
    before = len(await _received(advantage))
    picker = await launch(browser, advantage, user="t-dl", role="Instructor", deep_link="1")
    assert picker.status_code == 200, picker.text
    assert 'action="/lti/deep-link"' in picker.text
    assert f'value="lesson:{LESSON}"' in picker.text
    assert f'value="exercise:{EXERCISE}"' in picker.text

    chosen = await browser.post(
        "/lti/deep-link",
        data={
            "picking": _field(picker.text, "picking"),
            "item": [f"lesson:{LESSON}", f"exercise:{EXERCISE}"],
        },
    )
    assert chosen.status_code == 200, chosen.text
    action = re.search(
        r'<form method="post" action="([^"]+)" id="lti-deep-link-return"', chosen.text
    )
    assert action is not None
    return_url = html.unescape(action.group(1))
    assert return_url == f"{advantage.url}/deep-link-return"
    origin = advantage.url
    assert f"form-action 'self' {origin}" in chosen.headers["content-security-policy"]

    # The browser posts the signed answer to the platform, which verifies it.
    returned = await browser.post(return_url, data={"JWT": _field(chosen.text, "JWT")})
    assert returned.status_code == 200, returned.text
    items = (await _received(advantage))[before:]
    assert [item["type"] for item in items] == ["ltiResourceLink", "ltiResourceLink"]
    lesson, exercise = items
    assert lesson["custom"] == {"lesson": LESSON}
    assert lesson["url"] == f"http://testserver/lessons/{LESSON}"
    assert exercise["custom"] == {"exercise": EXERCISE}
    assert str(exercise["url"]).endswith(f"#exercise-{EXERCISE}")
    for item in items:
        line_item = item["lineItem"]
        assert isinstance(line_item, dict) and line_item["scoreMaximum"] == 100
        assert line_item["resourceId"] in (LESSON, EXERCISE)


async def test_a_learners_deep_linking_request_is_refused(
    browser: httpx.AsyncClient, advantage: RunningPlatform
) -> None:
    answer = await launch(browser, advantage, user="s-dl", role="Learner", deep_link="1")
    assert answer.status_code == 400
    assert "Only an instructor of the course can add activities." in answer.text


async def test_a_forged_choice_is_refused_and_nothing_is_signed(
    browser: httpx.AsyncClient, advantage: RunningPlatform
) -> None:
    picker = await launch(browser, advantage, user="t-dl2", role="Instructor", deep_link="1")
    sealed = _field(picker.text, "picking")
    forged = await browser.post(
        "/lti/deep-link", data={"picking": sealed[:-4] + "AAAA", "item": f"lesson:{LESSON}"}
    )
    assert forged.status_code == 400
    assert "JWT" not in forged.text
    assert claims.DEEP_LINKING_RESPONSE not in forged.text
