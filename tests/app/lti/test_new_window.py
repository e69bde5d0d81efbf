"""A launch inside the LMS's iframe (Sec-Fetch-Dest: iframe) answers a page that goes on to
the lesson or offers a new window; the new window's POST /lti/continue binds its cookie to
the launch's session, and nothing else gets in."""

from __future__ import annotations

import re
from html import unescape

import httpx
from fastapi import FastAPI

from tests.app.lti.flow import RunningPlatform, launch_form

LESSON = "tensor-basics"


async def test_a_framed_launch_offers_a_new_window_that_is_signed_in(
    browser: httpx.AsyncClient, registered: RunningPlatform, app: FastAPI
) -> None:
    form = await launch_form(browser, registered, user="s-7", role="Learner", lesson=LESSON)
    framed = await browser.post(
        form.action,
        data={"id_token": form.id_token, "state": form.state},
        headers={"Sec-Fetch-Dest": "iframe"},
    )
    assert framed.status_code == 200
    assert f'data-target="/lessons/{LESSON}"' in framed.text
    assert 'action="/lti/continue" target="_blank"' in framed.text
    assert "/static/lti.js" in framed.text
    found = re.search(r'name="handoff" value="([^"]+)"', framed.text)
    assert found is not None
    handoff = unescape(found.group(1))
    me = (await browser.get("/api/me")).json()

    # The new window: another cookie jar (the frame's cookie was never kept).
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as window:
        opened = await window.post("/lti/continue", data={"handoff": handoff})
        assert opened.status_code == 303
        assert opened.headers["location"] == f"/lessons/{LESSON}"
        assert (await window.get("/api/me")).json()["username"] == me["username"]

    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as other:
        forged = await other.post("/lti/continue", data={"handoff": handoff[:-2] + "xx"})
        assert forged.status_code == 400
        assert "came too late" in forged.text
        assert (await other.get("/api/me")).status_code == 401

    # Once the launch's session ends (log out), its handoff opens nothing.
    await browser.post("/logout", headers={"X-CSRF-Token": _csrf(await browser.get("/"))})
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as late:
        assert (await late.post("/lti/continue", data={"handoff": handoff})).status_code == 400
        assert (await late.get("/api/me")).status_code == 401


def _csrf(page: httpx.Response) -> str:
    found = re.search(r'name="csrf-token" content="([^"]+)"', page.text)
    assert found is not None
    return found.group(1)
