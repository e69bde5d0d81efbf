"""The teacher's pages in Turkish (issue 16.10): numbers and shares in the locale's format
("%67", "2,0"), verdicts and error labels translated, question and exercise titles in
Turkish with their inline code kept, and one denominator for a share right."""

from __future__ import annotations

import httpx

from app.classes.answers import plain
from app.db import Database
from app.web.templating import code_spans
from tests.app.classes.conftest import World
from tests.app.classes.test_insight import seed

TR = {"Accept-Language": "tr"}


def test_a_title_keeps_its_inline_code() -> None:
    # Before: tags became spaces, so "`cihaz`." read "cihaz ." and lost its code.
    title = plain("<p>Satırı, <code>x</code> seçilen aygıt <code>cihaz</code>.</p>")
    assert title == "Satırı, `x` seçilen aygıt `cihaz`."
    assert str(code_spans(title)) == "Satırı, <code>x</code> seçilen aygıt <code>cihaz</code>."
    assert plain("<code>a</code> ile <code>b</code>'yi <em>topla</em>.") == "`a` ile `b`'yi topla."
    # Cut inside a code span: the span is closed, never left open.
    assert plain("<p>Use <code>torch.arange(20).reshape(4, 5)</code> now</p>", 30) == (
        "Use `torch.arange(20).reshape`…"
    )
    assert str(code_spans("<b> `x<y`")) == "&lt;b&gt; <code>x&lt;y</code>"


async def test_insight_in_turkish(client: httpx.AsyncClient, db: Database, world: World) -> None:
    s = await seed(client, db, world)
    url = f"/classes/{world.class_id}/insight"
    page = await client.get(url, headers=world.teacher.headers | TR)
    assert page.status_code == 200
    html = page.text
    # 2 of the 3 who tried: the card and the table of the hardest agree, in Turkish format.
    assert html.count("%67") >= 2 and "67%" not in html
    assert "deneyen 3 öğrenciden 2 (sınıfta 4)" in html
    assert "ortalama 2,0 · ortanca 2,0" in html  # attempts to success
    # Titles in Turkish, inline code kept as code.
    assert "<code>torch.tensor([4, 8, 15])</code> tensörünün veri türü (dtype) nedir?" in html
    assert s["exercise"].translations["tr"]["title"] in html
    # Verdicts and error labels in Turkish.
    assert "Yanlış çıktı" in html and "wrong output" not in html
    assert "Süre sınırı aşıldı" in html and "Time limit exceeded" not in html

    english = (await client.get(url, headers=world.teacher.headers)).text
    assert english.count("67%") >= 2 and "mean 2.0 · median 2.0" in english
    assert "What is the dtype of <code>torch.tensor([4, 8, 15])</code>?" in english
    assert "Wrong output" in english and "Time limit exceeded" in english

    # The JSON API keeps its English labels.
    api = await client.get(f"/api/classes/{world.class_id}/insight", headers=world.teacher.headers)
    item = next(i for i in api.json()["items"] if i["id"] == s["exercise"].id)
    assert ("Time limit exceeded", 1) in [(g["label"], g["students"]) for g in item["errors"]]


async def test_grid_in_turkish(client: httpx.AsyncClient, db: Database, world: World) -> None:
    await seed(client, db, world)
    page = await client.get(
        f"/classes/{world.class_id}/progress", headers=world.teacher.headers | TR
    )
    assert page.status_code == 200
    assert "<small>%" in page.text
    assert "%</small>" not in page.text  # never "47%" on a Turkish page
    assert "öğrenciden" in page.text  # "Showing 4 of 4 students"
