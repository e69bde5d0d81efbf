"""Display names (issue 16, point 6): any script at sign-up (API and page), the username
when none is given, editable by the owner (API and account page), shown in the header;
and the one-time set-password links of accounts a teacher's roster import made."""

from __future__ import annotations

import html
from datetime import timedelta

import httpx
import pytest
from sqlalchemy import insert, select, update

from app.auth import password_links
from app.auth.security import verify_password
from app.db import Database
from app.models import User, utcnow
from app.models.user import PasswordLink
from tests.helpers import bearer, csrf_from, unique_name

PASSWORD = "correct horse"


async def test_sign_up_takes_a_display_name_in_any_script(client: httpx.AsyncClient) -> None:
    name = unique_name()
    response = await client.post(
        "/api/auth/register",
        json={"username": name, "password": PASSWORD, "display_name": "  Şükrü   Öztürk "},
    )
    assert response.status_code == 201, response.text
    user = response.json()["user"]
    assert user["display_name"] == "Şükrü Öztürk"  # trimmed, inner spaces collapsed
    me = await client.get("/api/me", headers=bearer(response.json()["token"]))
    assert me.json()["display_name"] == "Şükrü Öztürk"
    chinese = await client.post(
        "/api/auth/register",
        json={"username": unique_name(), "password": PASSWORD, "display_name": "李小龙"},
    )
    assert chinese.json()["user"]["display_name"] == "李小龙"


@pytest.mark.parametrize(
    "display_name",
    [
        pytest.param("", id="empty"),
        pytest.param("   ", id="blank"),
        pytest.param("a" * 81, id="81-characters"),
        pytest.param("bell\x07", id="control-character"),
        pytest.param("evil\u202egnp.exe", id="direction-override"),
        pytest.param(7, id="not-text"),
    ],
)
async def test_sign_up_refuses_a_bad_display_name(
    client: httpx.AsyncClient, display_name: object
) -> None:
    response = await client.post(
        "/api/auth/register",
        json={"username": unique_name(), "password": PASSWORD, "display_name": display_name},
    )
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["loc"][-1] == "display_name"


async def test_the_owner_changes_their_display_name(client: httpx.AsyncClient) -> None:
    created = await client.post(
        "/api/auth/register", json={"username": unique_name(), "password": PASSWORD}
    )
    headers = bearer(created.json()["token"])
    changed = await client.patch("/api/me", json={"display_name": "İpek Işık"}, headers=headers)
    assert changed.status_code == 200, changed.text
    assert changed.json()["display_name"] == "İpek Işık"
    assert (await client.get("/api/me", headers=headers)).json()["display_name"] == "İpek Işık"
    refused = await client.patch("/api/me", json={"display_name": ""}, headers=headers)
    assert refused.status_code == 422
    extra = await client.patch(
        "/api/me", json={"display_name": "x", "username": "other"}, headers=headers
    )
    assert extra.status_code == 422  # the username is not changed here
    assert (await client.patch("/api/me", json={"display_name": "x"})).status_code == 401


async def test_the_pages_take_and_show_the_display_name(client: httpx.AsyncClient) -> None:
    name = unique_name()
    page = await client.get("/signup")
    assert 'name="display_name"' in page.text
    bad = await client.post(
        "/signup",
        data={
            "username": name,
            "password": PASSWORD,
            "display_name": "a" * 81,
            "csrf_token": csrf_from(page.text),
        },
    )
    assert bad.status_code == 422
    assert "Display name: use at most 80 characters (this has 81)." in bad.text
    assert 'value="' + "a" * 81 + '"' in bad.text  # what was typed comes back
    signed_up = await client.post(
        "/signup",
        data={
            "username": name,
            "password": PASSWORD,
            "display_name": "Çağla Ünal",
            "csrf_token": csrf_from(bad.text),
        },
    )
    assert signed_up.status_code == 303, signed_up.text
    account = await client.get("/account")
    assert '<span class="me"' in account.text and "Çağla Ünal</span>" in account.text  # header
    saved = await client.post(
        "/account/name",
        data={"display_name": "Çağla Ünal-Yıldız", "csrf_token": csrf_from(account.text)},
    )
    assert saved.status_code == 303
    after = await client.get("/account")
    assert "Display name saved." in after.text
    assert "Çağla Ünal-Yıldız</span>" in after.text
    refused = await client.post(
        "/account/name", data={"display_name": " ", "csrf_token": csrf_from(after.text)}
    )
    assert refused.status_code == 422
    assert "Display name: fill this in." in html.unescape(refused.text)


async def test_a_set_password_link_works_once_and_expires(
    client: httpx.AsyncClient, db: Database
) -> None:
    async with db.sessionmaker() as session:
        user = await password_links.create_invited(
            session=session, username=unique_name(), display_name="Ece Kılıç", email=None
        )
        old_token, expires = await password_links.issue_link(session=session, user_id=user.id)
        token, _ = await password_links.issue_link(session=session, user_id=user.id)
        await session.commit()
        username = user.username
    assert expires - utcnow() > timedelta(days=password_links.LINK_DAYS - 1)
    # No password logs in to an account that has none yet.
    assert not verify_password("", password_links.NO_PASSWORD)
    assert not verify_password("not-a-real-password", password_links.NO_PASSWORD)
    login_page = await client.get("/login")
    nobody = await client.post(
        "/login",
        data={
            "username": username,
            "password": "not-a-real-password",
            "csrf_token": csrf_from(login_page.text),
        },
    )
    assert nobody.status_code == 401
    # A newer link ends the older one.
    assert (await client.get(f"/set-password/{old_token}")).status_code == 404

    form = await client.get(f"/set-password/{token}")
    assert form.status_code == 200
    assert "Welcome, Ece Kılıç." in form.text and username in form.text
    same_as_username = await client.post(
        f"/set-password/{token}", data={"password": username, "csrf_token": csrf_from(form.text)}
    )
    assert same_as_username.status_code == 422
    chosen = await client.post(
        f"/set-password/{token}",
        data={"password": "a quiet lighthouse", "csrf_token": csrf_from(form.text)},
    )
    assert chosen.status_code == 303
    assert (await client.get("/api/me")).json()["username"] == username
    again = await client.post(
        f"/set-password/{token}",
        data={
            "password": "another quiet one",
            "csrf_token": csrf_from((await client.get("/account")).text),
        },
    )
    assert again.status_code == 404

    async with db.sessionmaker() as session:
        late_user = await password_links.create_invited(
            session=session, username=unique_name(), display_name="Late", email=None
        )
        expired, _ = await password_links.issue_link(session=session, user_id=late_user.id)
        await session.execute(
            update(PasswordLink)
            .where(PasswordLink.user_id == late_user.id)
            .values(expires_at=utcnow() - timedelta(seconds=1))
        )
        await session.commit()
    gone = await client.get(f"/set-password/{expired}")
    assert gone.status_code == 404
    assert "This link no longer works" in gone.text


async def test_every_way_of_making_accounts_names_them_after_their_username(
    db: Database,
) -> None:
    """The model's default: one object, many objects, an executemany and a multi-row
    VALUES insert (benches and seeds make accounts that way) all get the username."""
    names = [unique_name("d") for _ in range(7)]
    async with db.sessionmaker() as session:
        session.add(User(username=names[0], password_hash="-"))
        session.add_all([User(username=name, password_hash="-") for name in names[1:3]])
        await session.execute(
            insert(User), [{"username": name, "password_hash": "-"} for name in names[3:5]]
        )
        await session.execute(
            insert(User).values([{"username": name, "password_hash": "-"} for name in names[5:]])
        )
        found = await session.execute(
            select(User.username, User.display_name).where(User.username.in_(names))
        )
        rows = {username: display_name for username, display_name in found}
        await session.rollback()
    assert rows == {name: name for name in names}
