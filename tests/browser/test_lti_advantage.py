"""LTI Advantage in Chromium: an instructor adds activities from the picker inside the
LMS's iframe (the independent platform, lti1p3platform, tests/app/lti/lms.py, served as
http://localhost; Tensorcamp at http://127.0.0.1): the choice goes back to the platform by
itself, signed, with no cookie needed in the frame; and the administrator's LTI page,
which must read on a phone."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from app.config import REPO_ROOT
from tests.app.lti.conftest import CLIENT_ID, DEPLOYMENT_ID, running_platform
from tests.browser.conftest import PASSWORD, audit, no_sideways_scroll
from tests.processes import Web

LESSON = "tensor-basics"


@pytest.fixture(scope="module")
def lms_and_tool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, Web]]:
    tmp = tmp_path_factory.mktemp("lti-advantage")
    data_dir = tmp / "data"
    web = Web(tmp, {"DATA_DIR": str(data_dir), "GRADING_ENABLED": "false"})
    with running_platform(web.url) as lms:
        lms_site = lms.url.replace("127.0.0.1", "localhost")  # another site than the tool
        web.env |= {"PUBLIC_BASE_URL": web.url, "FRAME_ANCESTORS": lms_site}
        env = os.environ | {
            "DATA_DIR": str(data_dir),
            "PUBLIC_BASE_URL": web.url,
            "APP_USER_PASSWORD": PASSWORD,
        }
        env.pop("DATABASE_URL", None)
        for command in (
            ["lti", "add-platform", "--issuer", lms.url, "--client-id", CLIENT_ID,
             "--deployment-id", DEPLOYMENT_ID, "--auth-url", f"{lms_site}/auth",
             "--token-url", f"{lms.url}/token", "--jwks-url", f"{lms.url}/jwks"],
            ["create-user", "--role", "admin", "--username", "lti-admin"],
        ):  # fmt: skip
            subprocess.run(
                [sys.executable, "-m", "app", *command],
                cwd=REPO_ROOT, env=env, check=True, capture_output=True, timeout=120,
            )  # fmt: skip
        web.start()
        try:
            yield lms_site, lms.url, web
        finally:
            web.stop()


def test_an_instructor_adds_a_lesson_from_the_picker_inside_the_lms_iframe(
    browser: Any, lms_and_tool: tuple[str, str, Web]
) -> None:
    lms_site, lms_url, web = lms_and_tool
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    try:
        page = context.new_page()
        page.goto(f"{lms_site}/course?user=t-picker&role=Instructor&deep_link=1")
        frame = page.frame_locator("iframe[title=Tensorcamp]")
        frame.get_by_role("heading", name="Add lessons or exercises to your course").wait_for()
        inner = next(f for f in page.frames if f.url.startswith(web.url))
        audit(inner, "lti-pick")
        frame.locator(f'input[value="lesson:{LESSON}"]').check()
        frame.get_by_role("button", name="Add to the course").click()
        # The signed answer posts itself to the platform, inside the frame.
        frame.get_by_text("1 activities added").wait_for()
    finally:
        context.close()
    items = httpx.get(f"{lms_url}/deep-links").json()
    assert {"lesson": LESSON} in [item["custom"] for item in items]


def test_the_administrators_lti_page_reads_on_a_phone(
    browser: Any, lms_and_tool: tuple[str, str, Web]
) -> None:
    _lms_site, lms_url, web = lms_and_tool
    context = browser.new_context(viewport={"width": 390, "height": 844}, base_url=web.url)
    try:
        page = context.new_page()
        page.goto("/login")
        page.fill("#username", "lti-admin")
        page.fill("#password", PASSWORD)
        page.locator("main form button[type=submit]").click()
        page.wait_for_url(f"{web.url}/")
        page.goto("/admin/lti")
        page.get_by_role("heading", name="Learning platforms (LTI)").wait_for()
        assert lms_url in page.locator(".lti-platforms").inner_text()
        page.locator("summary", has_text="Canvas").click()
        no_sideways_scroll(page)
        audit(page, "admin-lti")
    finally:
        context.close()
