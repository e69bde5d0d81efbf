"""Names and Role Provisioning Services against the independent platform (lti1p3platform,
tests/app/lti/lms.py): the teacher of a class made from a course syncs its roster, and
learners who have not launched yet join the class (and show in its grid); a learner who
launches later is that same account."""

from __future__ import annotations

import uuid

import httpx
from sqlalchemy import select

from app.db import Database
from app.lti import background, service
from app.models import ClassMember, LtiAccount, LtiContext, User
from tests.app.lti.flow import RunningPlatform, launch
from tests.helpers import meta_csrf

MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership#"


async def _course_with_roster(platform: RunningPlatform, members: list[dict[str, object]]) -> str:
    course = f"course-{uuid.uuid4().hex[:6]}"
    async with httpx.AsyncClient() as client:
        answer = await client.put(f"{platform.url}/roster/{course}", json=members)
        answer.raise_for_status()
    return course


async def _class_of(db: Database, platform: RunningPlatform, course: str) -> int:
    async with db.sessionmaker() as session:
        class_id = await session.scalar(
            select(LtiContext.class_id).where(
                LtiContext.issuer == platform.url, LtiContext.context_id == course
            )
        )
        assert class_id is not None
        return class_id


async def test_the_teacher_syncs_the_roster_and_learners_who_never_launched_join(
    browser: httpx.AsyncClient, advantage: RunningPlatform, db: Database
) -> None:
    teacher, ada, bob, gone = (f"{who}-{uuid.uuid4().hex[:6]}" for who in "tabg")
    course = await _course_with_roster(
        advantage,
        [
            {"user_id": teacher, "roles": [MEMBERSHIP + "Instructor"], "name": "Teach"},
            {"user_id": ada, "roles": [MEMBERSHIP + "Learner"], "name": "Ada Lovelace"},
            {"user_id": bob, "roles": [MEMBERSHIP + "Learner"], "name": "Bob"},
            {"user_id": gone, "roles": [MEMBERSHIP + "Learner"], "status": "Inactive"},
        ],
    )
    answer = await launch(browser, advantage, user=teacher, role="Instructor", context=course)
    assert answer.status_code == 303, answer.text
    class_id = await _class_of(db, advantage, course)
    page = await browser.get(f"/classes/{class_id}")
    assert f'action="/classes/{class_id}/lti-roster"' in page.text

    synced = await browser.post(
        f"/classes/{class_id}/lti-roster", data={"csrf_token": meta_csrf(page.text)}
    )
    assert synced.status_code == 303, synced.text
    page = await browser.get(synced.headers["location"])
    assert "Roster synced from the course: 2 students joined." in page.text
    assert "Last synced:" in page.text

    async with db.sessionmaker() as session:
        accounts = {
            row.subject: row.user_id
            for row in await session.scalars(
                select(LtiAccount).where(LtiAccount.issuer == advantage.url)
            )
        }
        assert {ada, bob} <= set(accounts) and gone not in accounts
        members = set(
            await session.scalars(
                select(ClassMember.student_id).where(ClassMember.class_id == class_id)
            )
        )
        assert members == {accounts[ada], accounts[bob]}
        ada_user = await session.get(User, accounts[ada])
        assert ada_user is not None and ada_user.username.startswith("ada-lovelace-")
    grid = await browser.get(f"/classes/{class_id}/progress")
    assert grid.status_code == 200
    assert ada_user.username in grid.text

    # Synced again: no one twice. Ada launching later is the account made for her.
    again = await browser.post(
        f"/api/classes/{class_id}/lti-roster", headers={"X-CSRF-Token": meta_csrf(page.text)}
    )
    assert again.status_code == 200, again.text
    assert again.json() == {"joined": 0}
    browser.cookies.clear()
    answer = await launch(browser, advantage, user=ada, role="Learner", context=course)
    assert answer.status_code == 303, answer.text
    me = (await browser.get("/api/me")).json()
    assert me["id"] == accounts[ada]


async def test_a_class_without_a_roster_says_so(
    browser: httpx.AsyncClient, advantage: RunningPlatform, db: Database
) -> None:
    """A class whose course's launches never named a roster: the API says why, and the
    class page offers no button."""
    answer = await launch(browser, advantage, user="t-nr", role="Instructor", context="no-nrps")
    assert answer.status_code == 303
    class_id = await _class_of(db, advantage, "no-nrps")
    async with db.sessionmaker() as session, session.begin():
        link = await session.scalar(select(LtiContext).where(LtiContext.class_id == class_id))
        assert link is not None
        link.memberships_url = None
    page = await browser.get(f"/classes/{class_id}")
    assert "lti-roster" not in page.text
    refused = await browser.post(
        f"/api/classes/{class_id}/lti-roster", headers={"X-CSRF-Token": meta_csrf(page.text)}
    )
    assert refused.status_code == 409
    assert "no roster to sync" in refused.json()["detail"]


async def test_rosters_are_synced_by_themselves_once_a_day(
    browser: httpx.AsyncClient, advantage: RunningPlatform, db: Database
) -> None:
    """The web process's background work (app/lti/background.py), one check driven here:
    a course whose roster was never synced is synced; then not again until a day later."""
    teacher, learner = f"t-{uuid.uuid4().hex[:6]}", f"l-{uuid.uuid4().hex[:6]}"
    course = await _course_with_roster(
        advantage, [{"user_id": learner, "roles": [MEMBERSHIP + "Learner"], "name": "Lee"}]
    )
    answer = await launch(browser, advantage, user=teacher, role="Instructor", context=course)
    assert answer.status_code == 303, answer.text
    class_id = await _class_of(db, advantage, course)

    assert await background.sync_due_rosters(database=db) == 1
    async with db.sessionmaker() as session:
        students = list(
            await session.scalars(
                select(ClassMember.student_id).where(ClassMember.class_id == class_id)
            )
        )
        link = await session.scalar(select(LtiContext).where(LtiContext.class_id == class_id))
    assert len(students) == 1
    assert link is not None and link.roster_synced_at is not None
    assert await background.sync_due_rosters(database=db) == 0
    a_day_later = link.roster_synced_at + service.ROSTER_SYNC_EVERY
    assert await background.sync_due_rosters(database=db, now=a_day_later) == 1
