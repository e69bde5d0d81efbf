"""LTI 1.3 launches end to end against an independent platform (lti1p3platform, its own
process and keys, tests/app/lti/lms.py): OIDC login, the launch as learner and as
instructor, and each refusal."""

from __future__ import annotations

import httpx
import pytest
from sqlalchemy import select

from app.db import Database
from app.lti import keys
from app.models import ClassMember, Classroom, LtiAccount, LtiContext, Role, User
from tests.app.lti.flow import RunningPlatform, launch, launch_form, post_launch

LESSON = "tensor-basics"
INSTRUCTOR, LEARNER = "Instructor", "Learner"


async def _me(browser: httpx.AsyncClient) -> dict[str, object] | None:
    answer = await browser.get("/api/me")
    return answer.json() if answer.status_code == 200 else None


async def test_instructor_then_learner_launch_sign_in_and_share_the_course_class(
    browser: httpx.AsyncClient, registered: RunningPlatform, db: Database
) -> None:
    answer = await launch(browser, registered, user="t-1", role=INSTRUCTOR, lesson=LESSON)
    assert answer.status_code == 303, answer.text
    assert answer.headers["location"] == f"/lessons/{LESSON}"
    teacher = await _me(browser)
    assert teacher is not None and teacher["role"] == Role.TEACHER
    page = await browser.get(answer.headers["location"])
    assert page.status_code == 200

    browser.cookies.clear()  # another person, at another computer
    answer = await launch(browser, registered, user="s-1", role=LEARNER, lesson=LESSON)
    assert answer.status_code == 303, answer.text
    learner = await _me(browser)
    assert learner is not None and learner["role"] == Role.STUDENT

    async with db.sessionmaker() as session:
        accounts = {
            row.subject: row.user_id
            for row in await session.scalars(
                select(LtiAccount).where(LtiAccount.issuer == registered.url)
            )
        }
        assert set(accounts) == {"t-1", "s-1"}
        link = await session.scalar(select(LtiContext).where(LtiContext.issuer == registered.url))
        assert link is not None and link.context_id == "course-1"
        classroom = await session.get(Classroom, link.class_id)
        assert classroom is not None
        assert classroom.teacher_id == accounts["t-1"]
        assert classroom.name == "Course course-1"
        members = list(
            await session.scalars(
                select(ClassMember.student_id).where(ClassMember.class_id == classroom.id)
            )
        )
        assert members == [accounts["s-1"]]
        student = await session.get(User, accounts["s-1"])
        assert student is not None and student.username.startswith("s-1-")

    # The same LMS user again: the same account, no second membership.
    browser.cookies.clear()
    answer = await launch(browser, registered, user="s-1", role=LEARNER, lesson=LESSON)
    assert answer.status_code == 303
    again = await _me(browser)
    assert again is not None and again["username"] == learner["username"]


async def test_a_launch_without_a_lesson_opens_the_home_page(
    browser: httpx.AsyncClient, registered: RunningPlatform
) -> None:
    answer = await launch(browser, registered, user="s-2", role=LEARNER)
    assert answer.status_code == 303
    assert answer.headers["location"] == "/"


async def test_the_launch_needs_no_csrf_token_even_with_a_session_cookie(
    browser: httpx.AsyncClient, registered: RunningPlatform
) -> None:
    await browser.get("/")  # the browser already holds a session (and its CSRF token)
    assert "session" in browser.cookies
    answer = await launch(browser, registered, user="s-3", role=LEARNER, lesson=LESSON)
    assert answer.status_code == 303, answer.text


@pytest.mark.parametrize(
    ("tamper", "reason"),
    [
        ("bad_signature", "signature does not match the platform's key"),
        ("wrong_audience", "meant for 'someone-else', not for this tool's client id"),
        ("unknown_deployment", "deployment 'not-registered' is not registered"),
        ("expired", "id_token has expired"),
    ],
)
async def test_a_bad_token_is_refused_with_a_page_that_says_why(
    browser: httpx.AsyncClient, registered: RunningPlatform, tamper: str, reason: str
) -> None:
    form = await launch_form(browser, registered, user="s-4", role=LEARNER, tamper=tamper)
    answer = await post_launch(browser, form)
    assert answer.status_code == 400
    assert "The launch did not work" in answer.text
    assert reason in answer.text.replace("&#39;", "'")
    assert form.id_token not in answer.text
    assert form.id_token.split(".")[1] not in answer.text
    assert await _me(browser) is None


async def test_a_launch_is_used_once(
    browser: httpx.AsyncClient, registered: RunningPlatform
) -> None:
    form = await launch_form(browser, registered, user="s-5", role=LEARNER)
    assert (await post_launch(browser, form)).status_code == 303
    browser.cookies.clear()
    replayed = await post_launch(browser, form)
    assert replayed.status_code == 400
    assert "already used" in replayed.text
    assert await _me(browser) is None


async def test_an_unknown_platform_or_missing_state_is_refused(
    browser: httpx.AsyncClient, registered: RunningPlatform
) -> None:
    answer = await browser.get(
        "/lti/login", params={"iss": "https://lms.example", "login_hint": "x"}
    )
    assert answer.status_code == 400
    assert "No platform &#39;https://lms.example&#39;" in answer.text
    # The platform may post the login initiation too.
    answer = await browser.post("/lti/login", data={"iss": registered.url, "login_hint": "x"})
    assert answer.status_code == 302
    answer = await browser.post("/lti/launch", data={"id_token": "a.b.c"})
    assert answer.status_code == 400
    assert "no id_token or no state" in answer.text


async def test_a_platform_key_rotation_is_picked_up_on_the_unknown_kid(
    browser: httpx.AsyncClient,
    registered: RunningPlatform,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert (await launch(browser, registered, user="s-6", role=LEARNER)).status_code == 303
    monkeypatch.setattr(keys, "REFRESH_AT_MOST_EVERY_S", 0.0)
    await browser.post(f"{registered.url}/rotate")
    browser.cookies.clear()
    assert (await launch(browser, registered, user="s-6", role=LEARNER)).status_code == 303


async def test_the_refusal_page_speaks_turkish(
    browser: httpx.AsyncClient, registered: RunningPlatform
) -> None:
    answer = await browser.post(
        "/lti/launch", data={"id_token": "a.b.c"}, headers={"Accept-Language": "tr"}
    )
    assert answer.status_code == 400
    assert "Başlatma olmadı" in answer.text
    assert "Başlatmada id_token ya da state yok." in answer.text
    answer = await browser.get(
        "/lti/login",
        params={"iss": "https://lms.example", "login_hint": "x"},
        headers={"Accept-Language": "tr"},
    )
    assert "Bu araçta &#39;https://lms.example&#39; platformu kayıtlı değil." in answer.text


async def test_every_instructor_of_the_course_runs_its_class(
    browser: httpx.AsyncClient, registered: RunningPlatform, db: Database
) -> None:
    """The first instructor to launch owns the course's class; another instructor of the
    course runs it too (its page, its progress, the class list); a learner does not."""
    answer = await launch(browser, registered, user="t-1", role=INSTRUCTOR, lesson=LESSON)
    assert answer.status_code == 303, answer.text
    async with db.sessionmaker() as session:
        link = await session.scalar(select(LtiContext).where(LtiContext.issuer == registered.url))
        assert link is not None
        class_id = link.class_id

    browser.cookies.clear()  # the course's second instructor
    answer = await launch(browser, registered, user="t-2", role=INSTRUCTOR, lesson=LESSON)
    assert answer.status_code == 303, answer.text
    progress = await browser.get(f"/api/classes/{class_id}/progress")
    assert progress.status_code == 200, progress.text
    assert class_id in [c["id"] for c in (await browser.get("/api/classes")).json()]
    assert (await browser.get(f"/classes/{class_id}")).status_code == 200
    # Launching again changes nothing.
    answer = await launch(browser, registered, user="t-2", role=INSTRUCTOR, lesson=LESSON)
    assert answer.status_code == 303

    browser.cookies.clear()
    answer = await launch(browser, registered, user="s-1", role=LEARNER, lesson=LESSON)
    assert answer.status_code == 303
    assert (await browser.get(f"/api/classes/{class_id}/progress")).status_code == 403
