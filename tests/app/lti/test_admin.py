"""/admin/lti: an administrator registers a platform from the page (and a launch from that
platform, lti1p3platform in its own process, then signs a learner in), sees what to paste
into the platform, and removes it; bad input is refused field by field and kept."""

from __future__ import annotations

import json
import re
from html import unescape

import httpx

from app.db import Database
from tests.app.auth.test_setup import _become_admin
from tests.app.lti.conftest import CLIENT_ID, DEPLOYMENT_ID
from tests.app.lti.flow import RunningPlatform, launch
from tests.helpers import browser_signup, csrf_from

HTML = {"Accept": "text/html"}


async def test_an_administrator_registers_a_platform_that_then_launches_and_removes_it(
    browser: httpx.AsyncClient, platform: RunningPlatform, db: Database
) -> None:
    await _become_admin(browser, db)
    page = await browser.get("/admin/lti", headers=HTML)
    assert page.status_code == 200
    for path in ("/lti/login", "/lti/launch", "/lti/jwks.json"):
        assert f"{path}</code>" in page.text
    shown = re.search(r'<pre class="code" id="canvas-json"><code>(.*?)</code>', page.text, re.S)
    assert shown is not None
    canvas = json.loads(unescape(shown.group(1)))
    assert canvas["oidc_initiation_url"].endswith("/lti/login")
    assert canvas["public_jwk_url"].endswith("/lti/jwks.json")
    assert "https://purl.imsglobal.org/spec/lti-ags/scope/score" in canvas["scopes"]

    registered = await browser.post(
        "/admin/lti/platforms",
        data={
            "issuer": platform.url,
            "client_id": CLIENT_ID,
            "deployment_ids": f"{DEPLOYMENT_ID}, another-deployment",
            "auth_url": f"{platform.url}/auth",
            "token_url": f"{platform.url}/token",
            "jwks_url": f"{platform.url}/jwks",
            "csrf_token": csrf_from(page.text),
        },
    )
    assert registered.status_code == 303, registered.text
    page = await browser.get("/admin/lti", headers=HTML)
    assert f"Platform {platform.url} registered." in page.text
    assert f"<h3>{platform.url}</h3>" in page.text
    assert "<code>another-deployment</code>" in page.text

    admin_cookies = dict(browser.cookies)
    browser.cookies.clear()
    arrived = await launch(browser, platform, user="s-admin", role="Learner")
    assert arrived.status_code == 303, arrived.text
    browser.cookies.clear()
    browser.cookies.update(admin_cookies)

    platform_id = re.search(r'action="/admin/lti/platforms/(\d+)/remove"', page.text)
    assert platform_id is not None
    removed = await browser.post(
        f"/admin/lti/platforms/{platform_id.group(1)}/remove",
        data={"csrf_token": csrf_from(page.text)},
    )
    assert removed.status_code == 303
    page = await browser.get("/admin/lti", headers=HTML)
    assert "No platform is registered yet." in page.text
    browser.cookies.clear()
    refused = await launch_start(browser, platform)
    assert refused.status_code == 400
    assert "is registered with this tool" in refused.text


async def launch_start(browser: httpx.AsyncClient, platform: RunningPlatform) -> httpx.Response:
    start = await browser.get(f"{platform.url}/start", params={"user": "x", "role": "Learner"})
    return await browser.get(start.headers["location"])


async def test_bad_input_is_refused_field_by_field_and_kept(
    client: httpx.AsyncClient, db: Database
) -> None:
    await _become_admin(client, db)
    page = await client.get("/admin/lti", headers=HTML)
    refused = await client.post(
        "/admin/lti/platforms",
        data={
            "issuer": "https://lms.example.edu",
            "client_id": "",
            "deployment_ids": " , ",
            "auth_url": "lms.example.edu/auth",
            "token_url": "https://lms.example.edu/token",
            "jwks_url": "ftp://lms.example.edu/jwks",
            "csrf_token": csrf_from(page.text),
        },
        headers=HTML,
    )
    assert refused.status_code == 422
    text = refused.text
    assert text.count("An address starting with https://") == 2
    assert text.count("Fill this in.") == 2  # the client id, the deployment ids
    assert 'value="https://lms.example.edu"' in text
    assert 'value="lms.example.edu/auth"' in text
    assert "No platform is registered yet." in text


async def test_only_an_administrator_sees_the_page(
    client: httpx.AsyncClient,
) -> None:
    anonymous = await client.get("/admin/lti", headers=HTML)
    assert anonymous.status_code == 303
    assert anonymous.headers["location"].startswith("/login")
    await browser_signup(client)
    assert (await client.get("/admin/lti", headers=HTML)).status_code == 403
