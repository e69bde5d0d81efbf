"""Security headers on every answer: a Content-Security-Policy that lets scripts and styles
come from the site only (the editor's one <style> by a nonce that changes every time), who
may frame the pages (FRAME_ANCESTORS), nosniff, the Referrer-Policy, HSTS when cookies are
Secure, and nothing but static files kept in any cache. The templates hold nothing that the
policy would block; the browser's side of it is tests/browser/test_csp.py."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from pydantic import ValidationError

from app.config import REPO_ROOT, Settings
from app.content import markdown
from app.db import Database
from app.main import create_app
from tests.app.auth.conftest import client_for
from tests.conftest import test_settings
from tests.helpers import bearer, browser_signup, register

TEMPLATES = REPO_ROOT / "app" / "templates"
PAGES = ["/", "/login", "/signup", "/lessons/tensor-basics", "/docs"]


def directives(response: httpx.Response) -> dict[str, str]:
    policy = response.headers["content-security-policy"]
    pairs = (part.strip().split(" ", 1) for part in policy.split(";"))
    return {name: value for name, value in pairs}


def assert_protected(response: httpx.Response) -> dict[str, str]:
    where = response.request.url
    csp = directives(response)
    assert csp["script-src"] == "'self'", where
    assert re.fullmatch(r"'self' 'nonce-[A-Za-z0-9_-]{20,}'", csp["style-src"]), where
    assert csp["default-src"] == "'self'"
    assert csp["img-src"] == "'self' data:"
    assert csp["connect-src"] == "'self'"
    assert csp["object-src"] == "'none'"
    assert csp["base-uri"] == "'none'"
    assert csp["form-action"] == "'self'"
    assert csp["frame-ancestors"] == "'none'"
    assert response.headers["x-frame-options"] == "DENY"
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] == "same-origin"
    assert "strict-transport-security" not in response.headers  # plain HTTP by default
    return csp


async def test_every_page_and_answer_carries_the_headers_and_is_not_cached(
    client: httpx.AsyncClient,
) -> None:
    _, token = await register(client)  # before a page gives the client a session cookie
    for path in PAGES:
        page = await client.get(path, headers={"accept": "text/html"})
        assert page.status_code == 200, path
        assert_protected(page)
        assert page.headers["cache-control"] == "no-store", path
    for path in ("/api/me", "/api/tracks", "/openapi.json", "/healthz"):
        answer = await client.get(path, headers=bearer(token))
        assert answer.status_code == 200, path
        assert_protected(answer)
        assert answer.headers["cache-control"] == "no-store", path
    await browser_signup(client)
    for path in ("/", "/account", "/classes"):
        page = await client.get(path)
        assert page.status_code == 200, path
        assert_protected(page)
        assert page.headers["cache-control"] == "no-store", path


async def test_refusals_carry_them_too(client: httpx.AsyncClient) -> None:
    missing = await client.get("/no/such/page", headers={"accept": "text/html"})
    too_big = await client.post(
        "/api/auth/register", content=b"x" * (1024 * 1024), headers={"content-type": "text/plain"}
    )
    anonymous = await client.get("/api/me")
    for answer, status in ((missing, 404), (too_big, 413), (anonymous, 401)):
        assert answer.status_code == status
        assert_protected(answer)
        assert answer.headers["cache-control"] == "no-store"


async def test_static_files_stay_cacheable(client: httpx.AsyncClient) -> None:
    for path in ("/static/style.css", "/static/swagger-init.js"):
        answer = await client.get(path)
        assert answer.status_code == 200, path
        assert "cache-control" not in answer.headers, path
        assert answer.headers["x-content-type-options"] == "nosniff"


async def test_the_style_nonce_is_new_every_time_and_handed_to_the_editor(
    client: httpx.AsyncClient,
) -> None:
    nonces = []
    for _ in range(2):
        page = await client.get("/lessons/tensor-basics")
        nonce = directives(page)["style-src"].split("'nonce-")[1].rstrip("'")
        assert f'<meta name="csp-nonce" content="{nonce}">' in page.text
        nonces.append(nonce)
    assert nonces[0] != nonces[1]


async def test_hsts_only_when_cookies_are_secure(tmp_path: Path, db: Database) -> None:
    app = create_app(test_settings(tmp_path, cookie_secure=True), database=db)
    async with client_for(app) as client:
        for path in ("/", "/api/tracks", "/static/style.css"):
            answer = await client.get(path)
            hsts = answer.headers["strict-transport-security"]
            assert re.fullmatch(r"max-age=\d+", hsts) and int(hsts[8:]) >= 180 * 24 * 3600


async def test_frame_ancestors_name_the_lms(tmp_path: Path, db: Database) -> None:
    lms = "https://lms.school.example https://*.moodle.example:8443"
    app = create_app(test_settings(tmp_path, frame_ancestors=lms), database=db)
    async with client_for(app) as client:
        page = await client.get("/")
    assert directives(page)["frame-ancestors"] == lms
    assert "x-frame-options" not in page.headers  # it cannot name an origin; CSP does


@pytest.mark.parametrize(
    "origins",
    [
        "https://lms.example; script-src *",
        "'unsafe-inline'",
        "https://lms.example/path",
        "javascript:alert(1)",
    ],
)
def test_frame_ancestors_must_be_origins(origins: str) -> None:
    with pytest.raises(ValidationError, match="frame_ancestors"):
        Settings(frame_ancestors=origins)


async def test_the_docs_page_runs_no_inline_script(client: httpx.AsyncClient) -> None:
    page = await client.get("/docs")
    scripts = re.findall(r"<script\b([^>]*)>(.*?)</script>", page.text, re.S)
    assert scripts
    for attributes, body in scripts:
        assert body.strip() == "", body
        source = re.search(r'src="([^"]+)"', attributes)
        assert source and source.group(1).startswith("/static/"), attributes
        assert (await client.get(source.group(1))).status_code == 200


# --- what the templates and rendered content may hold -------------------------------------

INLINE_SCRIPT = re.compile(r"<script\b(?![^>]*\bsrc=)(?![^>]*type=\"application/json\")[^>]*>")
STYLE_ATTRIBUTE = re.compile(r"\sstyle\s*=", re.I)
HANDLER_ATTRIBUTE = re.compile(r"\son[a-z]+\s*=", re.I)


def test_no_template_holds_what_the_policy_blocks() -> None:
    found = []
    for path in sorted(TEMPLATES.rglob("*.html")):
        text = path.read_text()
        for pattern in (INLINE_SCRIPT, STYLE_ATTRIBUTE, HANDLER_ATTRIBUTE, re.compile("<style")):
            found += [
                f"{path.relative_to(REPO_ROOT)}: {m.group(0)}" for m in pattern.finditer(text)
            ]
        found += [
            f"{path.relative_to(REPO_ROOT)}: javascript:" for _ in re.finditer("javascript:", text)
        ]
    assert found == []


def test_a_lesson_table_is_aligned_by_class_not_by_style() -> None:
    html = markdown.render("| a | b | c |\n|:--|:-:|--:|\n| 1 | 2 | 3 |\n")
    assert not STYLE_ATTRIBUTE.search(html), html
    assert html.count('class="align-left"') == 2
    assert html.count('class="align-center"') == 2
    assert html.count('class="align-right"') == 2
    css = (REPO_ROOT / "app" / "static" / "style.css").read_text()
    for side in ("left", "center", "right"):
        assert f".align-{side} " in css
