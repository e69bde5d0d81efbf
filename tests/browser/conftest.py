"""Browser tests: a real server process (SQLite in a temporary folder, the embedded grader)
driven through Debian's Chromium by Playwright, with an axe-core audit of every page.

Chromium comes in two builds of the same source, both Debian's: the headless shell
(/usr/bin/chromium-headless-shell: Blink, V8 and the network stack without the browser's
own windows), which most tests drive, and the whole browser (/usr/bin/chromium), for a test
of what only the whole browser decides, such as blocking third-party cookies (`full_browser`).
The whole browser opens its address bar's pop-ups as pages of their own in every window
(a renderer process each): on it, the browser tests used about a third more CPU.

Needs both (`make test-system-deps`), the Playwright package (the dev extra; it never
downloads a browser here: `executable_path` points at Debian's) and the built bundle
(`make frontend`). Screenshots go to test-artifacts/screenshots/."""

from __future__ import annotations

import functools
import json
import os
import subprocess
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.config import REPO_ROOT
from tests.conftest import BROWSER_TESTS
from tests.helpers import csrf_from
from tests.processes import PYTHON, Web

playwright_api = pytest.importorskip("playwright.sync_api")

HEADLESS_SHELL = Path(os.environ.get("CHROMIUM_HEADLESS_SHELL", "/usr/bin/chromium-headless-shell"))
CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
AXE = REPO_ROOT / "node_modules" / "axe-core" / "axe.min.js"
BUNDLE = REPO_ROOT / "app" / "static" / "dist" / "app.js"
ARTIFACTS = REPO_ROOT / "test-artifacts" / "screenshots"
PASSWORD = "correct horse battery"
LOCALES = {"en": "en-US", "tr": "tr-TR"}


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Web]:
    """The server of a worker's browser tests (a module that needs one of its own overrides
    this fixture with `serving`)."""
    yield from serving(tmp_path_factory)


def serving(tmp_path_factory: pytest.TempPathFactory, workers: int = 2) -> Iterator[Web]:
    """A server process (SQLite in a temporary folder, the embedded grader) until closed."""
    missing = [str(p.relative_to(REPO_ROOT)) for p in (BUNDLE, AXE) if not p.exists()]
    assert not missing, f"missing {missing}: run `make frontend` (npm ci and the bundle) first"
    tmp = tmp_path_factory.mktemp("browser")
    web = Web(tmp, {"DATA_DIR": str(tmp / "data"), "GRADER_WORKERS": str(workers)}).start()
    web.data_dir = tmp / "data"  # type: ignore[attr-defined]
    try:
        yield web
    finally:
        if admin := getattr(web, "admin", None):  # create_teacher's administrator
            admin.close()
        web.stop()


class _Chromium:
    """Playwright and the Chromium builds asked for, kept open while a worker runs browser
    tests one after another (module after module) and closed before any other test runs
    there: while Playwright's synchronous API is open, the thread counts as running an event
    loop, which the asyncio tests (and the async session fixtures' teardown) would trip over.
    launch() gives every run a fresh, temporary user-data dir of its own; every test gets
    fresh browser contexts (`visitor_factory`)."""

    def __init__(self) -> None:
        self._manager: Any = None  # sync_playwright(), entered
        self._playwright: Any = None  # what entering it gave
        self._browsers: dict[Path, Any] = {}  # by executable
        self.next_test: pytest.Item | None = None  # what the worker runs next (None: nothing)

    def open(self, executable: Path) -> Any:
        if not executable.exists():  # pragma: no cover - make test installs both
            pytest.skip(f"no Chromium at {executable}; run `make test-system-deps`")
        if self._playwright is None:
            self._manager = playwright_api.sync_playwright()
            self._playwright = self._manager.__enter__()
        if executable not in self._browsers:
            self._browsers[executable] = self._playwright.chromium.launch(
                executable_path=str(executable), args=CHROMIUM_ARGS, headless=True
            )
        return self._browsers[executable]

    def close(self) -> None:
        browsers, self._browsers = list(self._browsers.values()), {}
        try:
            for browser in browsers:
                browser.close()
        finally:
            if self._manager is not None:
                self._manager.__exit__(None, None, None)
                self._manager = self._playwright = None


_CHROMIUM = _Chromium()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Called for the tests of this folder only: tells `_chromium_after_module` what comes."""
    _CHROMIUM.next_test = nextitem
    return (yield)


@pytest.fixture(scope="module", autouse=True)
def _chromium_after_module() -> Iterator[None]:
    """After a module's tests, Chromium closes unless a browser test comes next. A module
    fixture: it ends before the session's (async) fixtures do when the worker is done."""
    yield
    following = _CHROMIUM.next_test
    if following is None or not following.path.is_relative_to(BROWSER_TESTS):
        _CHROMIUM.close()


@pytest.fixture
def browser() -> Any:
    """The headless shell."""
    return _CHROMIUM.open(HEADLESS_SHELL)


@pytest.fixture
def full_browser() -> Any:
    """The whole Chromium browser, for what the headless shell does not decide as Chrome does
    (it keeps third-party cookies, for one)."""
    return _CHROMIUM.open(CHROMIUM)


@dataclass
class Visitor:
    """One person's browser window, in one language."""

    page: Any
    base: str
    lang: str
    audited: list[str]

    def go(self, path: str) -> Any:
        self.page.goto(self.base + path)
        return self.page

    def audit(self, name: str) -> None:
        """axe-core on the page as it is now: no serious or critical violation."""
        audit(self.page, f"{self.lang}:{name}")
        self.audited.append(name)

    def shot(self, name: str, target: Any = None) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{self.lang}-{name}.png"
        if target is None:
            self.page.screenshot(path=str(path), full_page=True)
        else:
            target.screenshot(path=str(path))
        return path

    def expect_language(self) -> None:
        assert self.page.locator("html").get_attribute("lang") == self.lang


@functools.cache
def _axe_source() -> str:
    return AXE.read_text() + "\n;undefined"  # 650 KB, read once per worker


def inject_axe(page: Any) -> None:
    """axe-core into the page (a frame will do) unless it is there already. Evaluated rather
    than added as a <script>, so it also runs where the page's own scripts are switched off."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.evaluate(_axe_source())


def audit(page: Any, where: str) -> None:
    """Needs the page's scripts on: axe.run never settles where JavaScript is disabled."""
    inject_axe(page)
    result = page.evaluate(
        """async () => {
            const r = await axe.run(document, {resultTypes: ["violations"]});
            return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.slice(0, 5)
                    .map(n => n.target.join(" ") + " :: " + n.failureSummary)}));
        }"""
    )
    serious = [v for v in result if v["impact"] in ("serious", "critical")]
    assert not serious, f"axe on {where} ({page.url}):\n" + json.dumps(serious, indent=2)


VisitorFactory = Callable[[str], Visitor]  # a new visitor in this language ("en", "tr")


@pytest.fixture
def visitor_factory(browser: Any, server: Web) -> Iterator[VisitorFactory]:
    contexts: list[Any] = []

    def make(lang: str) -> Visitor:
        context = browser.new_context(
            locale=LOCALES[lang], viewport={"width": 1200, "height": 900}, base_url=server.url
        )
        context.set_default_timeout(20_000)
        contexts.append(context)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        visitor = Visitor(page=page, base=server.url, lang=lang, audited=[])
        visitor.errors = errors  # type: ignore[attr-defined]
        return visitor

    yield make
    for context in contexts:
        context.close()


def unique(prefix: str) -> str:
    return f"{prefix}{uuid.uuid4().hex[:8]}"


def sign_up(visitor: Visitor, username: str, *, audit: bool = True) -> None:
    page = visitor.go("/signup")
    visitor.expect_language()
    if audit:
        visitor.audit("signup")
    page.fill("#username", username)
    page.fill("#password", PASSWORD)
    page.locator("main form button[type=submit]").click()
    page.wait_for_url(visitor.base + "/")


def sign_up_here(v: Visitor, username: str) -> None:
    """On the sign-up page already (come from somewhere): fill it in and send it."""
    page = v.page
    page.fill("#username", username)
    page.fill("#password", PASSWORD)
    page.locator("main form button[type=submit]").click()


def create_user(server: Web, username: str, role: str) -> None:
    """An account made on the command line (`python -m app create-user`), password PASSWORD."""
    env = dict(os.environ) | {
        "DATA_DIR": str(server.data_dir),  # type: ignore[attr-defined]
        "APP_USER_PASSWORD": PASSWORD,
    }
    subprocess.run(
        [PYTHON, "-m", "app", "create-user", "--role", role, "--username", username],
        env=env,
        cwd=REPO_ROOT,
        check=True,
        capture_output=True,
        timeout=60,
    )


def create_teacher(server: Web, username: str) -> None:
    """A teacher account (password PASSWORD), made as an administrator makes one: on /admin.
    One administrator per server, made on the command line; a process per teacher would
    cost a second and more of CPU each."""
    admin: httpx.Client | None = getattr(server, "admin", None)
    if admin is None:
        name = unique("admin")
        create_user(server, name, "admin")
        admin = httpx.Client(base_url=server.url, timeout=30)
        form = admin.get("/login")
        logged_in = admin.post(
            "/login",
            data={"username": name, "password": PASSWORD, "csrf_token": csrf_from(form.text)},
        )
        assert logged_in.status_code == 303, logged_in.text
        server.admin = admin  # type: ignore[attr-defined]
    page = admin.get("/admin")
    made = admin.post(
        "/admin/teachers",
        data={"username": username, "password": PASSWORD, "csrf_token": csrf_from(page.text)},
    )
    assert made.status_code == 303, made.text


def log_in(visitor: Visitor, username: str) -> None:
    """Through the log-in form, with PASSWORD; waits for the home page."""
    page = visitor.go("/login")
    page.fill("#username", username)
    page.fill("#password", PASSWORD)
    page.locator("main form button[type=submit]").click()
    page.wait_for_url(visitor.base + "/")


def no_sideways_scroll(page: Any) -> None:
    """The page is no wider than the window: nothing scrolls sideways."""
    width = page.evaluate("() => document.documentElement.scrollWidth")
    viewport = page.evaluate("() => window.innerWidth")
    assert width <= viewport, f"{width}px wide in a {viewport}px window"


def bearer(client: httpx.Client, username: str) -> dict[str, str]:
    """The Authorization header of `username` (password PASSWORD), from the token API."""
    token = client.post("/api/auth/token", json={"username": username, "password": PASSWORD})
    assert token.status_code in (200, 201), token.text
    return {"Authorization": f"Bearer {token.json()['token']}"}


def class_with_lesson(
    client: httpx.Client, teacher: str, lesson: str, *, name: str, due_at: str | None
) -> tuple[int, str]:
    """A new class of the teacher's with `lesson` assigned: (class id, join code)."""
    headers = bearer(client, teacher)
    made = client.post("/api/classes", json={"name": unique(name)}, headers=headers)
    class_id, code = made.json()["id"], made.json()["join_code"]
    assigned = client.put(
        f"/api/classes/{class_id}/assignments/{lesson}", json={"due_at": due_at}, headers=headers
    )
    assert assigned.status_code == 200, assigned.text
    return class_id, code


def join_class(client: httpx.Client, code: str, student: dict[str, str]) -> dict[str, Any]:
    """The student (their headers) joins the class; their /api/me."""
    joined = client.post("/api/classes/join", json={"join_code": code}, headers=student)
    assert joined.status_code == 200, joined.text
    me: dict[str, Any] = client.get("/api/me", headers=student).json()
    return me
