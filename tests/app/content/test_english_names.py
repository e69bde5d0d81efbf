"""English content speaks English: the names in its code, questions and sample solutions
are English (`device`, `result`), and the Turkish ones (`cihaz`, `sonuc`) stay in the
Turkish translations and the *.tr.* files."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from typing import Any

import httpx

from app.config import REPO_ROOT
from app.content import load_catalog

# Identifiers the Turkish lessons use; none of them is an English word.
TURKISH_NAMES = re.compile(
    r"\b(cihaz|sonuc|sonuç|carpim|çarpım|kayip|kayıp|toplam|partiler?|veriler?|agirlik"
    r"|ağırlık|tahmin|dogru|doğru|ornek|örnek)\w*",
    re.IGNORECASE,
)


def english_texts(value: Any, where: str) -> Iterator[tuple[str, str]]:
    """Every text of the catalog but its translations."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        for key, item in value.items():
            if key != "translations":
                yield from english_texts(item, f"{where}.{key}")
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from english_texts(item, f"{where}[{index}]")
    elif isinstance(value, str):
        yield where, value


def test_english_content_uses_english_names() -> None:
    catalog = load_catalog(REPO_ROOT / "exercises")
    found = [
        f"{where}: {match.group(0)}"
        for lesson in catalog.lessons
        for where, text in english_texts(lesson, lesson.slug)
        for match in TURKISH_NAMES.finditer(text)
    ]
    assert found == []


def test_the_turkish_gpu_support_solution_uses_turkish_names() -> None:
    folder = REPO_ROOT / "exercises/lessons/gpu-support/exercises/gpu-support-device-independent"
    english = (folder / "solution.py").read_text()
    turkish = (folder / "solution.tr.py").read_text()
    assert "device" in english and not TURKISH_NAMES.search(english)
    assert "cihaz" in turkish and "sonuc" in turkish


async def test_the_english_pages_show_english_names(client: httpx.AsyncClient) -> None:
    """As served: every lesson page and lesson in the API, in English, then the Turkish page
    of the lesson that the report was about, in Turkish names."""
    for path in sorted((REPO_ROOT / "exercises" / "lessons").glob("*/lesson.yaml")):
        slug = path.parent.name
        page = await client.get(f"/lessons/{slug}", headers={"Accept-Language": "en"})
        assert page.status_code == 200
        api = await client.get(f"/api/lessons/{slug}")
        for text in (page.text, api.text):
            assert not re.search(r"\b(cihaz|sonuc|carpim|kayip)\b", text), slug
    turkish = await client.get("/lessons/gpu-support", headers={"Accept-Language": "tr"})
    assert "cihaz" in turkish.text
