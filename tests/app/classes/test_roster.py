"""People have names (issue 16, points 6 and 9): display names and student numbers in the
progress API and the teacher's pages, search that folds accents and Turkish i's, the
roster import (preview, then all rows or none, with one-time set-password links), and the
roster's actions that confirm first and can be undone for a while."""

from __future__ import annotations

import html
import re
from datetime import timedelta
from urllib.parse import unquote

import httpx
from fastapi import FastAPI
from sqlalchemy import func, select, update

from app.auth import password_links
from app.auth.schemas import fold_for_search
from app.classes import roster_import, service
from app.config import REPO_ROOT
from app.db import Database
from app.models import ClassMember, User, utcnow
from tests.app.classes.conftest import World, add_person
from tests.app.classes.test_pages import log_in, post_form
from tests.helpers import csrf_from, unique_name


async def _name(db: Database, person_id: int, display_name: str) -> None:
    async with db.sessionmaker() as session:
        await session.execute(
            update(User).where(User.id == person_id).values(display_name=display_name)
        )
        await session.commit()


def test_search_folds_accents_case_and_the_turkish_is() -> None:
    assert fold_for_search("Şahin") == fold_for_search("sahin") == "sahin"
    # i, I, İ and ı are one letter to search, whichever way the name or the search is typed.
    assert {fold_for_search(x) for x in ("IŞIK", "ışık", "Işık", "isik", "İŞİK")} == {"isik"}
    assert fold_for_search("Çağrı Öztürk") == "cagri ozturk"
    assert fold_for_search("Ñandú") == "nandu"


async def test_the_progress_api_names_students_and_carries_their_numbers(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    await _name(db, world.member.id, "Şükrü Öztürk")
    url = f"/api/classes/{world.class_id}/students/{world.member.id}"
    set_number = await client.patch(
        url, json={"student_number": " 2024-017 "}, headers=world.teacher.headers
    )
    assert set_number.status_code == 200, set_number.text
    assert set_number.json()["student_number"] == "2024-017"

    progress = await client.get(
        f"/api/classes/{world.class_id}/progress", headers=world.teacher.headers
    )
    (student,) = progress.json()["students"]
    assert student["display_name"] == "Şükrü Öztürk"
    assert student["student_number"] == "2024-017"
    detail = await client.get(f"/api/classes/{world.class_id}", headers=world.teacher.headers)
    (entry,) = detail.json()["students"]
    assert (entry["display_name"], entry["student_number"]) == ("Şükrü Öztürk", "2024-017")

    too_long = await client.patch(
        url, json={"student_number": "1" * 33}, headers=world.teacher.headers
    )
    assert too_long.status_code == 422
    outsider = await client.patch(
        f"/api/classes/{world.class_id}/students/{world.outsider.id}",
        json={"student_number": "1"},
        headers=world.teacher.headers,
    )
    assert outsider.status_code == 404
    not_theirs = await client.patch(
        url, json={"student_number": "1"}, headers=world.other_teacher.headers
    )
    assert not_theirs.status_code == 404
    cleared = await client.patch(url, json={"student_number": None}, headers=world.teacher.headers)
    assert cleared.json()["student_number"] is None


async def test_grid_and_roster_find_students_by_folded_name_username_and_number(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    # Usernames of letters only: a random hex one could hold the digits searched for below.
    letters = str.maketrans("0123456789", "ghijklmnop")
    async with db.sessionmaker() as session:
        people = [
            await add_person(session, username=unique_name("s").translate(letters))
            for _ in range(3)
        ]
        await session.commit()
    names = ["Ayşe Şahin", "IŞIK Yıldız", "Zeynep Kaya"]
    for person, name in zip(people, names, strict=True):
        await _name(db, person.id, name)
        async with db.sessionmaker() as session:
            await service.add_member(session=session, class_id=world.class_id, student_id=person.id)
            await session.commit()
    async with db.sessionmaker() as session:
        await service.set_student_number(
            session=session, class_id=world.class_id, student_id=people[2].id, number="7731"
        )
        await session.commit()
    await log_in(client, world.teacher.username)

    def shown(html: str) -> set[str]:
        return {name for name in names if name in html}

    grid = f"/classes/{world.class_id}/progress"
    roster = f"/classes/{world.class_id}"
    for search, found in [
        ("sahin", {"Ayşe Şahin"}),
        ("ŞAHİN", {"Ayşe Şahin"}),
        ("isik", {"IŞIK Yıldız"}),
        ("yildiz", {"IŞIK Yıldız"}),
        ("773", {"Zeynep Kaya"}),
        (people[1].username, {"IŞIK Yıldız"}),
    ]:
        for url in (grid, roster):
            page = await client.get(url, params={"q": search})
            assert page.status_code == 200
            assert shown(page.text) == found, (url, search)
    everyone = await client.get(roster)
    assert shown(everyone.text) == set(names)


async def test_a_removal_can_be_undone_for_a_while(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    await _name(db, world.member.id, "Işıl Çelik")
    await log_in(client, world.teacher.username)
    base = f"/classes/{world.class_id}"
    confirm = await client.get(f"{base}/students/{world.member.id}/remove")
    assert "Remove Işıl Çelik from the class?" in confirm.text
    removed = await post_form(client, f"{base}/students/{world.member.id}/remove")
    assert removed.status_code == 303
    page = (await client.get(base)).text
    undo = f"{base}/students/{world.member.id}/restore"
    assert f'action="{undo}"' in page and "Undo" in page
    assert "Işıl Çelik is no longer in this class" in page

    restored = await post_form(client, undo)
    assert restored.status_code == 303
    async with db.sessionmaker() as session:
        assert await service.member(
            session=session, class_id=world.class_id, student_id=world.member.id
        )

    # Past the undo window, "Undo" says so and changes nothing.
    await post_form(client, f"{base}/students/{world.member.id}/remove")
    async with db.sessionmaker() as session:
        await session.execute(
            update(ClassMember)
            .where(ClassMember.student_id == world.member.id)
            .values(removed_at=utcnow() - service.UNDO_WINDOW - timedelta(seconds=1))
        )
        await session.commit()
    late = await post_form(client, undo)
    assert late.status_code == 303
    assert "The time to undo this has passed." in (await client.get(base)).text
    async with db.sessionmaker() as session:
        assert not await service.member(
            session=session, class_id=world.class_id, student_id=world.member.id
        )


async def test_a_new_join_code_asks_first_and_can_be_undone(
    client: httpx.AsyncClient, world: World
) -> None:
    await log_in(client, world.teacher.username)
    base = f"/classes/{world.class_id}"
    page = (await client.get(base)).text
    assert f'href="{base}/join-code"' in page  # a link to the confirm step, not a button
    confirm = await client.get(f"{base}/join-code")
    assert confirm.status_code == 200
    assert "Make a new join code?" in confirm.text and world.join_code in confirm.text
    assert f'action="{base}/join-code"' in confirm.text

    await post_form(client, f"{base}/join-code")
    after = (await client.get(f"/api/classes/{world.class_id}")).json()["join_code"]
    assert after != world.join_code
    assert f'action="{base}/join-code/undo"' in (await client.get(base)).text
    undone = await post_form(client, f"{base}/join-code/undo")
    assert undone.status_code == 303
    back = (await client.get(f"/api/classes/{world.class_id}")).json()["join_code"]
    assert back == world.join_code
    assert f"The join code is {world.join_code} again." in (await client.get(base)).text
    # Only once: the session forgets the old code when it is used.
    await post_form(client, f"{base}/join-code/undo")
    assert "The time to undo this has passed." in (await client.get(base)).text


async def _accounts(db: Database) -> int:
    async with db.sessionmaker() as session:
        return int(await session.scalar(select(func.count(User.id))) or 0)


async def test_roster_import_previews_refuses_bad_rows_whole_and_then_adds_everyone(
    app: FastAPI, client: httpx.AsyncClient, db: Database, world: World
) -> None:
    await _name(db, world.outsider.id, "Deniz Ak")
    await log_in(client, world.teacher.username)
    base = f"/classes/{world.class_id}"
    tag = unique_name("")[:6]
    good = (
        "Ad;Numara;E-posta\n"
        f"Şükrü Öztürk;2024017;sukru.{tag}@okul.example\n"
        f"Deniz;2024018;{world.outsider.username}\n"
        f";2024019;{world.member.username}\n"
        f"Ayşe Yılmaz;;ayse.{tag}\n"
    )
    bad = good + (
        "Nobody;1;not-an-email@\n"
        f"Twice;2;sukru.{tag}@okul.example\n"
        f"Teacher;3;{world.other_teacher.username}\n"
        "No identifier;4;\n"
    )
    before = await _accounts(db)
    preview = await post_form(client, f"{base}/import", {"text": bad})
    assert preview.status_code == 422
    text = html.unescape(preview.text)
    assert "4 lines cannot be imported" in text and "Nothing has been imported" in text
    assert "is not an e-mail address" in text
    assert "Line 2 has the same e-mail or username" in text
    assert "is a teacher's or administrator's account" in text
    assert "No e-mail or username in the third column." in text
    assert "The first line names the columns; it was skipped." in text
    assert "import/confirm" not in text  # nothing to confirm while a line is refused
    assert "Nobody;1;not-an-email@" in text  # the list comes back to be corrected
    # A crafted confirm of the bad list changes nothing either.
    refused = await post_form(client, f"{base}/import/confirm", {"text": bad})
    assert refused.status_code == 422
    assert await _accounts(db) == before

    preview = await post_form(client, f"{base}/import", {"text": good})
    assert preview.status_code == 200, preview.text
    assert f"new account sukru.{tag}, with a set-password link" in preview.text
    assert f"joins the class (account {world.outsider.username})" in preview.text
    assert f"already in the class (account {world.member.username})" in preview.text
    assert await _accounts(db) == before  # a preview changes nothing

    done = await post_form(client, f"{base}/import/confirm", {"text": good})
    assert done.status_code == 200, done.text
    assert await _accounts(db) == before + 2
    links = re.findall(r'href="(http[^"]*/set-password/[^"]+)"', done.text)
    assert len(links) == 2
    assert 'download="Mine - links.csv"' in done.text

    progress = (await client.get(f"/api/classes/{world.class_id}/progress")).json()
    by_name = {s["display_name"]: s for s in progress["students"]}
    assert by_name["Şükrü Öztürk"]["student_number"] == "2024017"
    assert by_name["Şükrü Öztürk"]["username"] == f"sukru.{tag}"
    assert by_name["Ayşe Yılmaz"]["username"] == f"ayse.{tag}"
    # An existing student keeps their own name; the number is the class's.
    assert by_name["Deniz Ak"]["student_number"] == "2024018"
    assert by_name[world.member.username]["student_number"] == "2024019"

    # The same list again makes nothing twice: the e-mail finds the account made for it.
    again = await post_form(client, f"{base}/import", {"text": good})
    assert ", with a set-password link" not in again.text
    assert f"already in the class (account sukru.{tag})" in again.text
    await post_form(client, f"{base}/import/confirm", {"text": good})
    assert await _accounts(db) == before + 2

    # The link: the student picks a password (once), and is logged in.
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://testserver"
    ) as student:
        path = "/set-password/" + links[0].rsplit("/set-password/", 1)[1]
        form = await student.get(path)
        assert form.status_code == 200
        assert "Welcome, Şükrü Öztürk." in form.text
        csrf = re.search(r'name="csrf_token" value="([^"]+)"', form.text)
        assert csrf
        short = await student.post(path, data={"csrf_token": csrf[1], "password": "short"})
        assert short.status_code == 422
        chosen = await student.post(
            path, data={"csrf_token": csrf[1], "password": "tulips in the rain"}
        )
        assert chosen.status_code == 303, chosen.text
        me = (await student.get("/api/me")).json()
        assert me["display_name"] == "Şükrü Öztürk"
        used = await student.get(path)
        assert used.status_code == 404
        assert "This link no longer works" in used.text


async def test_roster_import_refuses_an_empty_list_and_keeps_what_was_typed(
    client: httpx.AsyncClient, world: World
) -> None:
    await log_in(client, world.teacher.username)
    empty = await post_form(client, f"/classes/{world.class_id}/import", {"text": " \n\n"})
    assert empty.status_code == 422
    assert "The list is empty" in empty.text
    columns = await post_form(
        client, f"/classes/{world.class_id}/import", {"text": "A,1,abc,extra\n"}
    )
    assert columns.status_code == 422
    assert "This line has 4 columns" in columns.text


def test_the_docs_give_the_codes_numbers() -> None:
    """docs/teachers.md and README.md say how long a link and an undo last, and how many
    students one import takes: the constants the code uses."""
    teachers = " ".join((REPO_ROOT / "docs" / "teachers.md").read_text().split())
    readme = " ".join((REPO_ROOT / "README.md").read_text().split())
    minutes = int(service.UNDO_WINDOW.total_seconds() // 60)
    assert f"For {minutes} minutes the message on the class page offers **Undo**" in teachers
    assert f"For {minutes} minutes the message that says they left offers" in teachers
    assert f"for {password_links.LINK_DAYS} days; with it the student" in teachers
    assert f"(valid {password_links.LINK_DAYS} days)" in readme
    assert f"At most {roster_import.MAX_ROWS} students at a time." in teachers


async def test_a_lost_link_is_replaced_only_while_no_password_is_chosen(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    async with db.sessionmaker() as session:
        invited = await password_links.create_invited(
            session=session, username=unique_name("inv"), display_name="Ömer Faruk", email=None
        )
        old, _ = await password_links.issue_link(session=session, user_id=invited.id)
        await service.add_member(session=session, class_id=world.class_id, student_id=invited.id)
        await session.commit()
    await log_in(client, world.teacher.username)
    base = f"/classes/{world.class_id}"
    roster = (await client.get(base)).text
    action = f"{base}/students/{invited.id}/password-link"
    assert f'action="{action}"' in roster and "has not chosen a password yet" in roster
    # The student who chose their own password has no such button.
    assert f"{base}/students/{world.member.id}/password-link" not in roster

    made = await post_form(client, action)
    assert made.status_code == 200
    assert "A new set-password link for Ömer Faruk" in made.text
    link = re.search(r'href="[^"]*(/set-password/[^"]+)"', made.text)
    assert link
    assert (await client.get(f"/set-password/{old}")).status_code == 404  # the old one ended
    assert (await client.get(link[1])).status_code == 200

    refused = await post_form(client, f"{base}/students/{world.member.id}/password-link")
    assert refused.status_code == 303
    assert "has chosen a password already" in html.unescape((await client.get(base)).text)
    other_class = await post_form(
        client, f"/classes/{world.other_class_id}/students/{invited.id}/password-link"
    )
    assert other_class.status_code == 404


async def test_students_are_listed_by_name_not_username(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    async with db.sessionmaker() as session:
        first = await add_person(session, username=unique_name("zz"))
        last = await add_person(session, username=unique_name("aa"))
        for person in (first, last):
            await service.add_member(session=session, class_id=world.class_id, student_id=person.id)
        await session.commit()
    await _name(db, first.id, "Çağla Aydın")
    await _name(db, last.id, "Deniz Zengin")
    await _name(db, world.member.id, "Cem Yılmaz")
    await log_in(client, world.teacher.username)
    # Accents folded: "Çağla" sorts as "cagla", before "Cem".
    expected = ["Çağla Aydın", "Cem Yılmaz", "Deniz Zengin"]
    for url in (f"/classes/{world.class_id}", f"/classes/{world.class_id}/progress"):
        text = (await client.get(url)).text
        assert sorted(expected, key=text.index) == expected, url


async def test_an_uploaded_csv_file_is_read_in_utf8_or_excels_turkish_encoding(
    client: httpx.AsyncClient, world: World
) -> None:
    await log_in(client, world.teacher.username)
    tag = unique_name("")[:6]
    lines = f"Name;Number;E-mail\nŞule Ağaoğlu;42;sule.{tag}@okul.example\n"
    for data in (lines.encode("cp1254"), "\ufeff".encode() + lines.encode()):
        token = csrf_from((await client.get(f"/classes/{world.class_id}/import")).text)
        preview = await client.post(
            f"/classes/{world.class_id}/import",
            data={"csrf_token": token, "text": ""},
            files={"file": ("list.csv", data, "text/csv")},
        )
        assert preview.status_code == 200, preview.text
        assert "Şule Ağaoğlu" in preview.text
        assert f"new account sule.{tag}, with a set-password link" in preview.text


async def test_the_links_file_never_makes_a_name_a_formula(
    client: httpx.AsyncClient, world: World
) -> None:
    await log_in(client, world.teacher.username)
    text = f'"=HYPERLINK(""http://x"")",+1,{unique_name("f")}\n'
    done = await post_form(client, f"/classes/{world.class_id}/import/confirm", {"text": text})
    assert done.status_code == 200, done.text
    href = re.search(r'href="data:text/csv;charset=utf-8,([^"]+)"', done.text)
    assert href
    links = unquote(html.unescape(href[1]))
    row = links.splitlines()[1]
    assert row.startswith('"\'=HYPERLINK(""http://x"")",\'+1,'), row
