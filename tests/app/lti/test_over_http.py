"""The whole way over real HTTP: Tensorcamp served by `python -m app serve` (SQLite in a
folder of its own), the platform registered with `python -m app lti add-platform`, and the
independent platform (lti1p3platform, tests/app/lti/lms.py) in a process of its own."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from html import unescape
from pathlib import Path
from typing import Any

import httpx

from app.config import REPO_ROOT
from app.lti.background import POLL_S
from app.models import Role
from tests.app.lti.conftest import CLIENT_ID, DEPLOYMENT_ID, running_platform
from tests.app.lti.flow import RunningPlatform
from tests.helpers import meta_csrf
from tests.processes import Web, wait_until

LESSON = "tensor-basics"


def _launch_form(browser: httpx.Client, lms: RunningPlatform, **params: str) -> dict[str, str]:
    start = browser.get(f"{lms.url}/start", params=params)
    login = browser.get(start.headers["location"])
    assert login.status_code == 302, login.text
    form = browser.get(login.headers["location"])
    assert form.status_code == 200, form.text
    fields = {
        name: unescape(value)
        for name, value in re.findall(r'name="(\w+)" value="([^"]*)"', form.text)
    }
    action = re.search(r'action="([^"]+)"', form.text)
    assert action is not None
    return {"action": unescape(action.group(1))} | fields


def _post(browser: httpx.Client, form: dict[str, str]) -> httpx.Response:
    data = {"id_token": form["id_token"], "state": form["state"]}
    return browser.post(form["action"], data=data)


def test_registration_and_launches_over_http(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    web = Web(tmp_path, {"DATA_DIR": str(data_dir), "GRADING_ENABLED": "false"})
    web.env["PUBLIC_BASE_URL"] = web.url
    with running_platform(web.url) as lms:
        registered = _add_platform(lms, data_dir, web.url)
        assert registered.returncode == 0, registered.stderr
        assert f"{web.url}/lti/jwks.json" in registered.stdout
        web.start()
        try:
            assert len(httpx.get(f"{web.url}/lti/jwks.json").json()["keys"]) == 1
            with httpx.Client(base_url=web.url) as teacher:
                form = _launch_form(teacher, lms, user="t-1", role="Instructor", lesson=LESSON)
                answer = _post(teacher, form)
                assert answer.status_code == 303, answer.text
                assert answer.headers["location"] == f"/lessons/{LESSON}"
                assert teacher.get(answer.headers["location"]).status_code == 200
                assert teacher.get("/api/me").json()["role"] == Role.TEACHER
            with httpx.Client(base_url=web.url) as student:
                form = _launch_form(student, lms, user="s-1", role="Learner", lesson=LESSON)
                assert _post(student, form).status_code == 303
                assert student.get("/api/me").json()["role"] == Role.STUDENT
                student.cookies.clear()
                replayed = _post(student, form)
                assert replayed.status_code == 400
                assert "already used" in replayed.text
                assert student.get("/api/me").status_code == 401
        finally:
            web.stop()


def test_a_score_reaches_the_platform_after_it_was_down_and_the_tool_restarted(
    tmp_path: Path,
) -> None:
    """The running server's own delivery: the learner's first score arrives by itself; the
    platform goes down, the learner answers right, the tool is killed (as a crash) and
    started again, the platform comes back at the same address, and the score arrives."""
    data_dir = tmp_path / "data"
    web = Web(tmp_path, {"DATA_DIR": str(data_dir), "GRADING_ENABLED": "false"})
    web.env["PUBLIC_BASE_URL"] = web.url
    line_item = "li-over-http"
    student = httpx.Client(base_url=web.url)
    try:  # the server stopped however the test ends: a failure leaves no process
        with running_platform(web.url) as lms:
            port = int(lms.url.rsplit(":", 1)[1])
            registered = _add_platform(lms, data_dir, web.url)
            assert registered.returncode == 0, registered.stderr
            web.start()
            form = _launch_form(
                student, lms, user="s-http", role="Learner", lesson=LESSON, lineitem=line_item
            )
            assert _post(student, form).status_code == 303
            wait_until(lambda: len(_scores(lms, line_item)) == 1, 60, "the first score")
        # The platform is down.
        page = student.get(f"/lessons/{LESSON}")
        answer = student.post(
            "/api/questions/tensor-basics-default-dtype/answers",
            json={"answer": 1},
            headers={"X-CSRF-Token": meta_csrf(page.text)},
        )
        assert answer.status_code == 200, answer.text
        time.sleep(POLL_S + 1)  # a round finds the platform down
        web.kill()
        web.start()
        with running_platform(web.url, port=port) as back:
            wait_until(lambda: len(_scores(back, line_item)) == 1, 120, "the queued score")
            (score,) = _scores(back, line_item)
            assert score["userId"] == "s-http" and 0 < float(score["scoreGiven"]) < 1
    finally:
        student.close()
        web.stop()


def _add_platform(
    lms: RunningPlatform, data_dir: Path, base_url: str
) -> subprocess.CompletedProcess[str]:
    """`python -m app lti add-platform` for this platform, as an administrator runs it."""
    env = os.environ | {"DATA_DIR": str(data_dir), "PUBLIC_BASE_URL": base_url}
    env.pop("DATABASE_URL", None)
    return subprocess.run(
        [sys.executable, "-m", "app", "lti", "add-platform", "--issuer", lms.url,
         "--client-id", CLIENT_ID, "--deployment-id", DEPLOYMENT_ID,
         "--auth-url", f"{lms.url}/auth", "--token-url", f"{lms.url}/token",
         "--jwks-url", f"{lms.url}/jwks"],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def _scores(lms: RunningPlatform, line_item: str) -> list[dict[str, Any]]:
    scores: list[dict[str, Any]] = httpx.get(f"{lms.url}/scores/{line_item}").json()
    return scores
