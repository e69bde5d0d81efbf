"""A launch as a browser makes it, between the platform (tests/app/lti/lms.py) and
the tool under test."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

import httpx


@dataclass(frozen=True)
class RunningPlatform:
    url: str


@dataclass
class LaunchForm:
    action: str
    id_token: str
    state: str


async def launch_form(
    browser: httpx.AsyncClient, platform: RunningPlatform, **params: str
) -> LaunchForm:
    """The platform's side of clicking a link, up to the form it posts to the tool:
    its redirect to the tool's login, the tool's redirect to its authorization URL,
    and the form it answers with."""
    start = await browser.get(f"{platform.url}/start", params=params)
    assert start.status_code in (302, 307), start.text
    login = await browser.get(start.headers["location"])
    assert login.status_code == 302, login.text
    assert login.headers["location"].startswith(f"{platform.url}/auth?")
    form = await browser.get(login.headers["location"])
    assert form.status_code == 200, form.text
    fields = dict(re.findall(r'name="(\w+)" value="([^"]*)"', form.text))
    action = re.search(r'action="([^"]+)"', form.text)
    assert action is not None
    return LaunchForm(
        html.unescape(action.group(1)),
        html.unescape(fields["id_token"]),
        html.unescape(fields["state"]),
    )


async def post_launch(browser: httpx.AsyncClient, form: LaunchForm) -> httpx.Response:
    return await browser.post(form.action, data={"id_token": form.id_token, "state": form.state})


async def launch(
    browser: httpx.AsyncClient, platform: RunningPlatform, **params: str
) -> httpx.Response:
    return await post_launch(browser, await launch_form(browser, platform, **params))
