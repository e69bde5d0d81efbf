"""An LTI launch inside the LMS's iframe, in Chromium (issue 14): a course page of the
independent platform (lti1p3platform, tests/app/lti/lms.py, served as http://localhost)
frames Tensorcamp (http://127.0.0.1, another site) with FRAME_ANCESTORS naming the
platform. The session cookie a launch starts is SameSite=None; Secure (COOKIE_SECURE, kept
by Chromium for loopback addresses over plain HTTP as over HTTPS), but Chromium blocks
third-party cookies: the launch offers a new window, where the learner is signed in. The
whole browser decides that (`full_browser`); the headless shell would keep the cookie."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.config import REPO_ROOT
from tests.app.lti.conftest import CLIENT_ID, DEPLOYMENT_ID, running_platform
from tests.app.lti.flow import RunningPlatform
from tests.browser.conftest import audit
from tests.processes import Web

LESSON = "tensor-basics"


@pytest.fixture(scope="module")
def lms_and_tool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Web]]:
    tmp = tmp_path_factory.mktemp("lti-iframe")
    data_dir = tmp / "data"
    web = Web(tmp, {"DATA_DIR": str(data_dir), "GRADING_ENABLED": "false"})
    with running_platform(web.url) as lms:
        lms_site = lms.url.replace("127.0.0.1", "localhost")  # another site than the tool
        web.env |= {
            "PUBLIC_BASE_URL": web.url,
            "FRAME_ANCESTORS": lms_site,
            "COOKIE_SECURE": "true",
        }
        _register(data_dir, web, lms, lms_site)
        web.start()
        try:
            yield lms_site, web
        finally:
            web.stop()


def _register(data_dir: Path, web: Web, lms: RunningPlatform, lms_site: str) -> None:
    env = os.environ | {"DATA_DIR": str(data_dir), "PUBLIC_BASE_URL": web.url}
    env.pop("DATABASE_URL", None)
    subprocess.run(
        [sys.executable, "-m", "app", "lti", "add-platform", "--issuer", lms.url,
         "--client-id", CLIENT_ID, "--deployment-id", DEPLOYMENT_ID,
         "--auth-url", f"{lms_site}/auth", "--token-url", f"{lms_site}/token",
         "--jwks-url", f"{lms.url}/jwks"],
        cwd=REPO_ROOT, env=env, check=True, capture_output=True, timeout=120,
    )  # fmt: skip


def test_a_learner_launches_inside_the_lms_iframe(
    full_browser: Any, lms_and_tool: tuple[str, Web]
) -> None:
    """Chromium blocks third-party cookies, so the frame keeps no session: the launch
    says so and opens Tensorcamp, signed in, in a new window."""
    lms_site, web = lms_and_tool
    context = full_browser.new_context(viewport={"width": 1366, "height": 900})
    try:
        page = context.new_page()
        page.goto(f"{lms_site}/course?user=s-iframe&role=Learner&lesson={LESSON}")
        frame = page.frame_locator("iframe[title=Tensorcamp]")
        button = frame.get_by_role("button", name="Open in a new window")
        button.wait_for()
        inner = next(f for f in page.frames if f.url.startswith(web.url))
        audit(inner, "lti-arrived")
        assert "Log in" in frame.locator("header.site").inner_text()  # no session in the frame
        with context.expect_page() as opened:
            button.click()
        window = opened.value
        window.wait_for_url(f"{web.url}/lessons/{LESSON}")
        assert "s-iframe-" in window.locator("header.site").inner_text()  # signed in
        cookie = next(c for c in context.cookies(web.url) if c["name"] == "session")
        assert cookie["sameSite"] == "None" and cookie["secure"]
    finally:
        context.close()
