"""The tool's keys at /lti/jwks.json (made once, rotated with the old key kept published
for a while) and the session cookie a launch starts (SameSite=None only over HTTPS and
only for LTI sessions)."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import httpx
from fastapi import FastAPI
from joserfc import jwt
from joserfc.jwk import KeySet, RSAKey

from app.db import Database
from app.lti import keys
from app.lti.cookies import cross_site
from app.main import create_app
from app.models import LtiToolKey, utcnow
from tests.app.lti.flow import RunningPlatform, launch
from tests.conftest import test_settings


async def test_jwks_publishes_the_current_key_and_a_recently_retired_one(
    client: httpx.AsyncClient, db: Database
) -> None:
    assert (await client.get("/lti/jwks.json")).json() == {"keys": []}
    async with db.sessionmaker() as session, session.begin():
        first = await keys.ensure_key(session=session)
        assert (await keys.ensure_key(session=session)).kid == first.kid
    answer = await client.get("/lti/jwks.json")
    assert answer.headers["content-type"] == "application/json"
    published = answer.json()["keys"]
    assert [key["kid"] for key in published] == [first.kid]
    assert published[0]["alg"] == "RS256" and published[0]["use"] == "sig"
    assert "d" not in published[0] and "p" not in published[0]  # never the private half

    # A token signed with the private key verifies with the published set.
    async with db.sessionmaker() as session:
        current = await keys.current_key(session=session)
        assert current is not None
        signer = RSAKey.import_key(json.loads(current.private_jwk))
    token = jwt.encode({"alg": "RS256", "kid": first.kid}, {"iss": "tool"}, signer)
    assert jwt.decode(token, KeySet.import_key_set({"keys": published})).claims == {"iss": "tool"}

    now = utcnow()
    async with db.sessionmaker() as session, session.begin():
        second = await keys.rotate_key(session=session, now=now)
    kids = [key["kid"] for key in (await client.get("/lti/jwks.json")).json()["keys"]]
    assert kids == [second.kid, first.kid]
    async with db.sessionmaker() as session:
        later = now + keys.RETIRED_KEY_PUBLISHED + timedelta(minutes=1)
        still = await keys.published_jwks(session=session, now=later)
        assert [key["kid"] for key in still["keys"]] == [second.kid]
        retired = await session.get(LtiToolKey, first.id)
        assert retired is not None and retired.retired_at == now


def test_only_a_secure_session_cookie_becomes_cross_site() -> None:
    secure = "session=abc; path=/; Max-Age=10; httponly; samesite=lax; secure"
    assert cross_site(secure) == "session=abc; path=/; Max-Age=10; httponly; secure; samesite=none"
    plain = "session=abc; path=/; Max-Age=10; httponly; samesite=lax"
    assert cross_site(plain) == plain
    other = "lang=tr; path=/; samesite=lax; secure"
    assert cross_site(other) == other


async def test_over_https_an_lti_session_cookie_works_in_the_lms_iframe(
    db: Database, registered: RunningPlatform, tmp_path: Path
) -> None:
    app: FastAPI = create_app(test_settings(tmp_path, cookie_secure=True), database=db)
    mounts = {
        "http://testserver": httpx.ASGITransport(app=app),
        registered.url: httpx.AsyncHTTPTransport(),
    }
    async with httpx.AsyncClient(mounts=mounts, base_url="http://testserver") as browser:
        ordinary = await browser.get("/")
        assert "samesite=lax" in ordinary.headers["set-cookie"].lower()
        answer = await launch(browser, registered, user="s-9", role="Learner")
        assert answer.status_code == 303
        cookie = answer.headers["set-cookie"].lower()
        assert "samesite=none" in cookie and "secure" in cookie
        assert "samesite=lax" not in cookie
