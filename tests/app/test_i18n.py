"""Interface languages: choosing one, the pages in Turkish, complete catalogs, lessons in
another language with an English fallback, and the workbench's forms without JavaScript."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from babel.messages.pofile import read_po

from app import i18n
from app.config import REPO_ROOT
from app.content import markdown
from tests.helpers import browser_signup

HTML = {"Accept": "text/html"}
TR = {"Accept": "text/html", "Accept-Language": "tr-TR,tr;q=0.9,en;q=0.5"}
CATALOGS = REPO_ROOT / "app" / "translations"


def html_lang(text: str) -> str:
    match = re.search(r'<html lang="([a-z]+)">', text)
    assert match
    return match.group(1)


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("", []),
        ("tr-TR,tr;q=0.9,en-US;q=0.8,en;q=0.7", ["tr", "tr", "en", "en"]),
        ("en;q=0.2, tr;q=0.8", ["tr", "en"]),
        ("de, *;q=0.1, tr;q=0", ["de", "*"]),
        ("garbage;;q=x,,", []),  # a q-value that is not a number: not wanted
    ],
)
def test_accept_language_is_read_in_order_of_preference(header: str, expected: list[str]) -> None:
    assert i18n.parse_accept_language(header) == expected


def test_choice_order_is_query_then_cookie_then_browser() -> None:
    assert i18n.choose_language("en", "tr", "tr") == "en"
    assert i18n.choose_language(None, "tr", "en") == "tr"
    assert i18n.choose_language("xx", "yy", "de, tr;q=0.5") == "tr"
    assert i18n.choose_language(None, None, "de, fr") == "en"


async def test_the_language_follows_the_browser(client: httpx.AsyncClient) -> None:
    english = await client.get("/", headers=HTML)
    assert html_lang(english.text) == "en"
    assert "Learn PyTorch by doing" in english.text
    turkish = await client.get("/", headers=TR)
    assert html_lang(turkish.text) == "tr"
    assert turkish.headers["content-language"] == "tr"
    assert "PyTorch’u yaparak öğrenin" in turkish.text
    assert "Learn PyTorch by doing" not in turkish.text
    assert '<a href="/?lang=en" lang="en" hreflang="en">English</a>' in turkish.text


async def test_the_switcher_sets_a_cookie_that_wins_over_the_browser(
    client: httpx.AsyncClient,
) -> None:
    switched = await client.get("/lessons/tensor-basics?lang=tr", headers=HTML)
    assert html_lang(switched.text) == "tr"
    assert "lang=tr" in switched.headers["set-cookie"]
    later = await client.get("/", headers={"Accept": "text/html", "Accept-Language": "en"})
    assert html_lang(later.text) == "tr"
    back = await client.get("/?lang=en", headers=TR)
    assert html_lang(back.text) == "en"
    assert html_lang((await client.get("/", headers=TR)).text) == "en"


async def test_an_unknown_language_is_english_and_sets_nothing(client: httpx.AsyncClient) -> None:
    page = await client.get("/?lang=xx", headers=HTML)
    assert html_lang(page.text) == "en"
    assert "set-cookie" not in page.headers or "lang=" not in page.headers["set-cookie"]


async def test_the_api_is_never_translated(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/lessons/no-such-lesson", headers={"Accept-Language": "tr"})
    assert response.json() == {"detail": "Lesson not found."}


async def test_error_pages_are_translated(client: httpx.AsyncClient) -> None:
    page = await client.get("/lessons/no-such-lesson", headers=TR)
    assert page.status_code == 404
    assert "<h1>Bulunamadı</h1>" in page.text
    assert "Ders bulunamadı." in page.text


async def test_a_translated_lesson_is_shown_in_turkish(client: httpx.AsyncClient) -> None:
    page = await client.get("/lessons/gpu-support", headers=TR)
    assert "<h1>GPU desteği</h1>" in page.text
    assert "GPU neden önemli?" in page.text
    assert '<section class="check-yourself"><h2>Kendini sına</h2>' in page.text
    assert "Why the GPU matters" not in page.text
    catalog = await client.get("/", headers=TR)
    assert "GPU desteği" in catalog.text


async def test_every_lesson_reads_in_turkish(client: httpx.AsyncClient) -> None:
    # The course is written in both languages: no lesson falls back to English (the fallback
    # itself is tested on a small course of its own in tests/app/content/test_translations.py).
    for path in sorted((REPO_ROOT / "exercises" / "lessons").glob("*/lesson.yaml")):
        page = await client.get(f"/lessons/{path.parent.name}", headers=TR)
        assert html_lang(page.text) == "tr"
        assert '<div class="body" lang="en">' not in page.text, path.parent.name
        assert "Bu ders henüz çevrilmedi" not in page.text, path.parent.name
        assert '<h2 id="practice">Alıştırmalar</h2>' in page.text


def test_lesson_labels_follow_the_language_of_the_text() -> None:
    turkish = markdown.render("```output predict\n1\n```\n```race\n```\n", "tr")
    assert "<summary>Çıktıyı tahmin edin, sonra açın</summary>" in turkish
    assert 'aria-label="Çıktı"' in turkish
    english = markdown.render("```output predict\n1\n```\n")
    assert "<summary>Predict the output, then reveal it</summary>" in english


async def test_forms_and_messages_in_turkish(client: httpx.AsyncClient) -> None:
    await browser_signup(client)
    page = await client.get("/lessons/gpu-support", headers=TR)
    assert "Değerlendirmeye gönder" in page.text
    assert "Kontrol et" in page.text
    account = await client.get("/account", headers=TR)
    assert "Hesabınız" in account.text
    client.cookies.clear()
    signup = await client.get("/signup", headers=TR)
    token = re.search(r'name="csrf_token" value="([^"]+)"', signup.text)
    assert token
    response = await client.post(
        "/signup",
        data={"username": "A!", "password": "short", "csrf_token": token.group(1), "next": "/"},
        headers=TR,
    )
    assert response.status_code == 422
    # Each message names the field and its rule, in Turkish (app/web/forms.py).
    assert "Kullanıcı adı: en az 3 karakter kullanın (bunda 2 var)." in response.text
    assert "Parola: en az 8 karakter kullanın (bunda 5 var)." in response.text


async def test_the_workbench_works_without_javascript(client: httpx.AsyncClient) -> None:
    await browser_signup(client)
    page = (await client.get("/lessons/gpu-support", headers=HTML)).text
    exercise = "gpu-support-device-independent"
    form = re.search(
        rf'<form method="post" action="/exercises/{exercise}/submissions".*?</form>', page, re.S
    )
    assert form
    assert f'formaction="/exercises/{exercise}/runs"' in form.group(0)
    assert '<textarea id="code-' in form.group(0)
    assert f'<form method="post" action="/exercises/{exercise}/give-up">' in page
    # The starter code for the editor's Reset, but never the sample solution.
    data = re.search(r'<script type="application/json" class="exercise-data">(.*?)</script>', page)
    assert data and '"starter":' in data.group(1)
    assert "product.device.type" not in data.group(1)


def test_every_interface_string_is_translated_into_turkish(tmp_path: Path) -> None:
    """The catalogs are up to date with the code (run `make i18n-update` if this fails) and
    every Turkish entry is translated, not fuzzy, with the same placeholders."""
    pot = tmp_path / "messages.pot"
    subprocess.run(
        [sys.executable, "-m", "babel.messages.frontend", "-q", "extract", "-F", "babel.cfg",
         "-o", str(pot), "app"],
        cwd=REPO_ROOT, check=True, capture_output=True,
    )  # fmt: skip
    with pot.open("rb") as handle:
        wanted = {m.id if isinstance(m.id, str) else m.id[0] for m in read_po(handle) if m.id}
    with (CATALOGS / "tr" / "LC_MESSAGES" / "messages.po").open("rb") as handle:
        turkish = read_po(handle)
    have = {m.id if isinstance(m.id, str) else m.id[0]: m for m in turkish if m.id}
    assert sorted(wanted - set(have)) == [], "strings missing from the Turkish catalog"
    for key in wanted:
        message = have[key]
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        assert all(strings), f"untranslated: {key!r}"
        assert not message.fuzzy, f"fuzzy: {key!r}"
        ids = [
            str(text) for text in (message.id if isinstance(message.id, tuple) else (message.id,))
        ]
        fields = {f for text in ids for f in re.findall(r"%\(\w+\)[sd]|\{\w+\}", text)}
        for text in map(str, strings):
            assert set(re.findall(r"%\(\w+\)[sd]|\{\w+\}", text)) <= fields, key
            assert set(re.findall(r"</?\w+", text)) == set(re.findall(r"</?\w+", ids[0])), key


def test_the_scripts_messages_are_all_translated() -> None:
    i18n.set_language("tr")
    try:
        turkish = i18n.js_messages()
    finally:
        i18n.set_language("en")
    english = i18n.js_messages()
    assert turkish.keys() == english.keys()
    same = {
        k
        for k in english
        if turkish[k] == english[k] and not re.fullmatch(r"[{}\w ]+ ms", english[k])
    }
    assert same == set(), same
