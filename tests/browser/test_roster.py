"""People have names, in a real browser (issue 16, points 6 and 9), in English and Turkish:
a student signs up as "Şükrü Öztürk" and the header says so; the teacher finds them on the
roster and the grid by typing "sukru" or "ozturk", gives them a number, removes them and
takes it back with "Undo", makes a new join code (after a confirm step) and undoes that
too; a pasted list with a bad line is refused whole, then imported once corrected, and a
new student sets their password through their link. axe audits each page, which fits a
phone (390 px) without scrolling sideways."""

from __future__ import annotations

import httpx
import pytest

from tests.browser.conftest import (
    PASSWORD,
    VisitorFactory,
    bearer,
    create_teacher,
    log_in,
    no_sideways_scroll,
    unique,
)
from tests.processes import Web

WORDS = {
    "en": {
        "find": "Find",
        "save": "Save",
        "remove": "Remove",
        "yes_remove": "Yes, remove",
        "undo": "Undo",
        "new_code": "Make a new code",
        "yes_code": "Yes, make a new code",
        "back": "is back in the class",
        "number_saved": "student number is now 4711",
        "code_back": "The join code is",
    },
    "tr": {
        "find": "Bul",
        "save": "Kaydet",
        "remove": "Kaldır",
        "yes_remove": "Evet, kaldır",
        "undo": "Geri al",
        "new_code": "Yeni kod üret",
        "yes_code": "Evet, yeni kod oluştur",
        "back": "sınıfa geri döndü",
        "number_saved": "numarası artık 4711",
        "code_back": "Katılma kodu yeniden",
    },
}


def _class(server: Web, teacher: str) -> tuple[int, str]:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        made = client.post(
            "/api/classes", json={"name": unique("Roster ")}, headers=bearer(client, teacher)
        )
        assert made.status_code == 201, made.text
        return made.json()["id"], made.json()["join_code"]


@pytest.mark.parametrize("lang", ["en", "tr"])
def test_names_search_numbers_and_undo_on_the_roster(
    lang: str, server: Web, visitor_factory: VisitorFactory
) -> None:
    words = WORDS[lang]
    teacher = unique("teach")
    create_teacher(server, teacher)
    class_id, code = _class(server, teacher)

    student = visitor_factory(lang)
    page = student.go("/signup")
    username = unique("sukru")
    page.fill("#username", username)
    page.fill("#display_name", "Şükrü Öztürk")
    page.fill("#password", PASSWORD)
    page.locator("main form button[type=submit]").click()
    page.wait_for_url(student.base + "/")
    assert page.locator("header .me").inner_text() == "Şükrü Öztürk"
    with httpx.Client(base_url=server.url, timeout=30) as client:
        joined = client.post(
            "/api/classes/join", json={"join_code": code}, headers=bearer(client, username)
        )
        assert joined.status_code == 200, joined.text

    v = visitor_factory(lang)
    log_in(v, teacher)
    page = v.go(f"/classes/{class_id}")
    roster = page.locator("table.roster")
    assert "Şükrü Öztürk" in roster.inner_text()
    page.fill("#roster-q", "SUKRU")
    page.get_by_role("button", name=words["find"], exact=True).click()
    page.wait_for_url("**q=SUKRU**")
    assert "Şükrü Öztürk" in page.locator("table.roster").inner_text()
    page.fill("#roster-q", "zeynep")
    page.get_by_role("button", name=words["find"], exact=True).click()
    page.wait_for_url("**q=zeynep**")
    assert page.locator("table.roster").count() == 0

    grid = v.go(f"/classes/{class_id}/progress?q=ozturk")
    assert grid.locator("table.grid tbody th.who").inner_text().startswith("Şükrü Öztürk")

    page = v.go(f"/classes/{class_id}")
    page.locator("table.roster input[name=student_number]").fill("4711")
    page.locator("table.roster").get_by_role("button", name=words["save"]).click()
    assert words["number_saved"] in page.locator("main .alert").inner_text()
    assert page.locator("table.roster input[name=student_number]").input_value() == "4711"
    grid = v.go(f"/classes/{class_id}/progress?q=471")
    assert "4711" in grid.locator("table.grid tbody th.who").inner_text()

    # Remove asks first; the flash message's "Undo" takes it back.
    page = v.go(f"/classes/{class_id}")
    page.locator("table.roster").get_by_role("link", name=words["remove"]).click()
    page.wait_for_url(f"**/classes/{class_id}/students/*/remove")
    v.audit("confirm-remove")
    page.get_by_role("button", name=words["yes_remove"]).click()
    page.wait_for_url(f"**/classes/{class_id}#roster")
    assert page.locator("table.roster").count() == 0
    flash = page.locator("main .alert.undo")
    assert "Şükrü Öztürk" in flash.inner_text()
    v.audit("roster-undo")
    page.set_viewport_size({"width": 390, "height": 844})
    no_sideways_scroll(page)
    v.shot("roster-undo-390")
    page.set_viewport_size({"width": 1200, "height": 900})
    flash.get_by_role("button", name=words["undo"]).click()
    assert words["back"] in page.locator("main .alert").inner_text()
    assert "Şükrü Öztürk" in page.locator("table.roster").inner_text()
    assert page.locator("table.roster input[name=student_number]").input_value() == "4711"

    # A new join code asks first, and can be undone.
    page.get_by_role("link", name=words["new_code"]).click()
    page.wait_for_url(f"**/classes/{class_id}/join-code")
    v.audit("confirm-code")
    page.get_by_role("button", name=words["yes_code"]).click()
    page.wait_for_url(f"**/classes/{class_id}")
    assert code not in page.locator(".join-code").inner_text()
    page.locator("main .alert.undo").get_by_role("button", name=words["undo"]).click()
    assert words["code_back"] in page.locator("main .alert").inner_text()
    assert page.locator(".join-code").inner_text() == code
    v.audit("class-page")
    page.set_viewport_size({"width": 390, "height": 844})
    no_sideways_scroll(page)


def test_a_pasted_roster_is_previewed_refused_whole_then_imported(
    server: Web, visitor_factory: VisitorFactory
) -> None:
    teacher = unique("teach")
    create_teacher(server, teacher)
    class_id, _ = _class(server, teacher)
    tag = unique("")
    good = f"Ayşe Işık,2024001,ayse.{tag}@okul.example\nİbrahim Çelik,,ibo.{tag}\n"
    v = visitor_factory("en")
    log_in(v, teacher)
    page = v.go(f"/classes/{class_id}")
    page.get_by_role("link", name="Import students (CSV)").click()
    page.wait_for_url(f"**/classes/{class_id}/import")
    v.audit("import")
    page.fill("#import-text", good + "Nobody,1,\n")
    page.get_by_role("button", name="Preview").click()
    preview = page.locator("table.import-preview")
    assert "No e-mail or username in the third column." in preview.inner_text()
    assert "Nothing has been imported" in page.locator("main .alert.error").inner_text()
    assert page.get_by_role("button", name="Import 3 students").count() == 0
    v.audit("import-refused")
    page.set_viewport_size({"width": 390, "height": 844})
    no_sideways_scroll(page)
    page.set_viewport_size({"width": 1200, "height": 900})
    # What was pasted is still there to correct.
    assert "Nobody,1," in page.locator("#import-text").input_value()
    page.fill("#import-text", good)
    page.get_by_role("button", name="Preview").click()
    assert f"new account ibo.{tag}" in page.locator("table.import-preview").inner_text()
    page.get_by_role("button", name="Import 2 students").click()
    links = page.locator("ol.import-links a.set-password-link")
    assert links.count() == 2
    assert page.locator("a[download]", has_text="Download the links (CSV)").count() == 1
    v.audit("import-done")
    page.set_viewport_size({"width": 390, "height": 844})
    no_sideways_scroll(page)
    v.shot("import-done-390")
    link = links.first.get_attribute("href")
    assert link

    newcomer = visitor_factory("tr")
    page = newcomer.go(link.split(server.url, 1)[-1])
    assert "Ayşe Işık" in page.locator("main").inner_text()
    newcomer.audit("set-password")
    page.fill("#password", "sunny meadow walk")
    page.locator("main form button[type=submit]").click()
    page.wait_for_url(newcomer.base + "/")
    assert page.locator("header .me").inner_text() == "Ayşe Işık"
    # The link worked once.
    page = newcomer.go(link.split(server.url, 1)[-1])
    assert "Bu bağlantı artık çalışmıyor" in page.locator("main").inner_text()

    page = v.go(f"/classes/{class_id}?q=isik")
    page.set_viewport_size({"width": 1200, "height": 900})
    assert "Ayşe Işık" in page.locator("table.roster").inner_text()
    assert page.locator("table.roster input[name=student_number]").input_value() == "2024001"
