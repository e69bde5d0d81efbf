"""Limits that hold (docs/security.md, "Limits"): each one counted so that requests at once
cannot all pass it, refused with 429 and Retry-After (JSON for the API; for pages, the form
again with what was typed), and kept per subject, so that one user or one address never
uses up anyone else's share. Long polls: a user holds a few at once, the newest win.

Sequential behaviour runs on the usual per-test database; what must hold under concurrency
runs against a live app (its own database, grading off so that submissions stay queued)."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

from app import limits
from app.classes import service as classes
from app.config import Settings
from app.db import Database
from app.main import create_app
from app.models import QuestionAttempt, RateCount, Submission, User, utcnow
from tests.app.submissions.conftest import running_app
from tests.conftest import test_settings as settings_with
from tests.helpers import (
    PASSWORD,
    browser_signup,
    csrf_from,
    make_student,
    refuse_server_errors,
    unique_name,
)

EXERCISE = "gpu-support-device-independent"
FILL_IN = "tensor-basics-count-up"  # two blanks: "arange", "3"
FILL_IN_LESSON = "tensor-basics"
LIMITS: dict[str, object] = {
    "signups_per_address": 3,
    "answers_per_minute": 3,
    "join_guesses_per_user": 3,
    "join_guesses_per_address": 5,
    "runs_per_minute": 5,
    "submissions_per_minute": 100,
    "max_queued_per_user": 8,
    "long_polls_per_user": 3,
}
AT_ONCE = 30


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return settings_with(tmp_path, **LIMITS)


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
async def live_app(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[FastAPI]:
    tmp = tmp_path_factory.mktemp("limits")
    async with running_app(request.param, tmp, grading_enabled=False, **LIMITS) as app:
        yield app


def client_from(app: FastAPI, address: str = "127.0.0.1") -> httpx.AsyncClient:
    """A client whose requests come from `address`; any 5xx answer fails the test."""
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app, client=(address, 40000)),
        base_url="http://testserver",
        event_hooks={"response": [refuse_server_errors]},
    )


def assert_refused(response: httpx.Response, *, at_most_s: int) -> int:
    assert response.status_code == 429, response.text
    retry_after = int(response.headers["Retry-After"])
    assert 1 <= retry_after <= at_most_s
    return retry_after


def sign_up_body() -> dict[str, str]:
    return {"username": unique_name("s"), "password": PASSWORD}


async def teacher_and_class(database: Database) -> str:
    """A class of a new teacher; its join code."""
    async with database.sessionmaker() as session, session.begin():
        teacher = User(username=unique_name("t"), password_hash="x", role="teacher")
        session.add(teacher)
        await session.flush()
        classroom = await classes.create_class(session=session, teacher_id=teacher.id, name="7B")
        return classroom.join_code


# --- sign-ups, per address ---------------------------------------------------------------


async def test_sign_ups_are_limited_per_address(app: FastAPI) -> None:
    async with client_from(app, "203.0.113.1") as school, client_from(app, "203.0.113.2") as other:
        for _ in range(3):
            assert (await school.post("/api/auth/register", json=sign_up_body())).status_code == 201
        refused = await school.post("/api/auth/register", json=sign_up_body())
        assert_refused(refused, at_most_s=600)
        assert "sign-ups" in refused.json()["detail"]
        # Another address has its own share.
        assert (await other.post("/api/auth/register", json=sign_up_body())).status_code == 201

        # The page: the form again, with the username typed and when to try again.
        form = await school.get("/signup")
        page = await school.post(
            "/signup",
            data={
                "username": "still-typed",
                "password": PASSWORD,
                "csrf_token": csrf_from(form.text),
                "next": "/",
            },
        )
        seconds = assert_refused(page, at_most_s=600)
        assert 'value="still-typed"' in page.text
        assert f"try again in {seconds} seconds" in page.text
        assert PASSWORD not in page.text


async def test_sign_ups_at_once_stop_at_the_limit(live_app: FastAPI) -> None:
    async with client_from(live_app, "198.51.100.7") as client:
        answers = await asyncio.gather(
            *(client.post("/api/auth/register", json=sign_up_body()) for _ in range(AT_ONCE))
        )
    codes = Counter(response.status_code for response in answers)
    assert codes == {201: 3, 429: AT_ONCE - 3}


# --- submissions: per minute, and unfinished ones per student ----------------------------


async def _submit_at_once(app: FastAPI, path: str) -> tuple[Counter[int], int]:
    """AT_ONCE submissions of one new student at once: the answers' status codes, and how
    many the database holds."""
    headers, user_id = await make_student(app.state.database)
    async with client_from(app) as client:
        answers = await asyncio.gather(
            *(
                client.post(
                    f"/api/exercises/{EXERCISE}/{path}", json={"code": "print(1)"}, headers=headers
                )
                for _ in range(AT_ONCE)
            )
        )
    for response in answers:
        if response.status_code == 429:
            assert_refused(response, at_most_s=60)
    async with app.state.database.sessionmaker() as session:
        stored = await session.scalar(
            select(func.count()).select_from(Submission).where(Submission.user_id == user_id)
        )
    return Counter(response.status_code for response in answers), int(stored or 0)


async def test_runs_at_once_stop_at_the_limit_a_minute(live_app: FastAPI) -> None:
    codes, stored = await _submit_at_once(live_app, "runs")
    assert codes == {202: 5, 429: AT_ONCE - 5}
    assert stored == 5


async def test_a_student_has_a_few_submissions_waiting_at_most(live_app: FastAPI) -> None:
    codes, stored = await _submit_at_once(live_app, "submissions")
    assert codes == {202: 8, 429: AT_ONCE - 8}
    assert stored == 8


async def test_the_queue_cap_is_per_student_and_said_on_the_page(app: FastAPI) -> None:
    headers, _ = await make_student(app.state.database)
    async with client_from(app) as client:
        for _ in range(8):
            response = await client.post(
                f"/api/exercises/{EXERCISE}/submissions", json={"code": "pass"}, headers=headers
            )
            assert response.status_code == 202
        refused = await client.post(
            f"/api/exercises/{EXERCISE}/submissions", json={"code": "pass"}, headers=headers
        )
        assert_refused(refused, at_most_s=60)
        assert "waiting to be graded" in refused.json()["detail"]
        other, _ = await make_student(app.state.database)
        response = await client.post(
            f"/api/exercises/{EXERCISE}/submissions", json={"code": "pass"}, headers=other
        )
        assert response.status_code == 202

        # From the lesson page's form: the page again at once, the code still in its editor.
        page = await client.get("/lessons/gpu-support", headers=headers)
        refused = await client.post(
            f"/exercises/{EXERCISE}/submissions",
            data={"code": "print('kept as typed')", "csrf_token": csrf_from(page.text)},
            headers=headers,
        )
        assert_refused(refused, at_most_s=60)
        assert "print(&#39;kept as typed&#39;)" in refused.text


async def test_the_grading_queue_is_capped_for_the_whole_site(db: Database, tmp_path: Path) -> None:
    # GRADER_QUEUE_LIMIT (docs/security.md): queued submissions of all students together.
    app = create_app(settings_with(tmp_path, **LIMITS, grader_queue_limit=3), database=db)
    async with client_from(app) as client:
        for _ in range(3):
            headers, _ = await make_student(db)
            response = await client.post(
                f"/api/exercises/{EXERCISE}/submissions", json={"code": "pass"}, headers=headers
            )
            assert response.status_code == 202
        newcomer, _ = await make_student(db)
        refused = await client.post(
            f"/api/exercises/{EXERCISE}/submissions", json={"code": "pass"}, headers=newcomer
        )
        assert_refused(refused, at_most_s=5)
        assert "grading queue is full" in refused.json()["detail"]


# --- answers, per student ----------------------------------------------------------------


async def _answer(client: httpx.AsyncClient, headers: dict[str, str]) -> httpx.Response:
    return await client.post(
        f"/api/questions/{FILL_IN}/answers", json={"answer": ["zeros", "2"]}, headers=headers
    )


async def test_answers_are_limited_per_student(app: FastAPI) -> None:
    headers, _ = await make_student(app.state.database)
    other, _ = await make_student(app.state.database)
    async with client_from(app) as client:
        for _ in range(3):
            assert (await _answer(client, headers)).status_code == 200
        refused = await _answer(client, headers)
        assert_refused(refused, at_most_s=60)
        assert "answers" in refused.json()["detail"]
        assert (await _answer(client, other)).status_code == 200

    # From the lesson page: the page again, with the blanks as typed and when to try again.
    async with client_from(app, "192.0.2.50") as browser:
        await browser_signup(browser)
        for _ in range(3):
            assert (await _answer_by_form(browser, "first")).status_code == 303
        page = await _answer_by_form(browser, "typed-again")
        seconds = assert_refused(page, at_most_s=60)
        assert 'value="typed-again"' in page.text
        assert f"try again in {seconds} seconds" in page.text


async def _answer_by_form(browser: httpx.AsyncClient, blank: str) -> httpx.Response:
    page = await browser.get(f"/lessons/{FILL_IN_LESSON}")
    return await browser.post(
        f"/lessons/{FILL_IN_LESSON}/questions/{FILL_IN}",
        data={"blank": [blank, "2"], "csrf_token": csrf_from(page.text)},
    )


async def test_answers_at_once_stop_at_the_limit(live_app: FastAPI) -> None:
    headers, user_id = await make_student(live_app.state.database)
    async with client_from(live_app) as client:
        answers = await asyncio.gather(*(_answer(client, headers) for _ in range(AT_ONCE)))
    assert Counter(response.status_code for response in answers) == {200: 3, 429: AT_ONCE - 3}
    async with live_app.state.database.sessionmaker() as session:
        recorded = await session.scalar(
            select(func.count())
            .select_from(QuestionAttempt)
            .where(QuestionAttempt.user_id == user_id)
        )
    assert recorded == 3


# --- join codes, per student and per address ---------------------------------------------


async def _join(client: httpx.AsyncClient, headers: dict[str, str], code: str) -> httpx.Response:
    return await client.post("/api/classes/join", json={"join_code": code}, headers=headers)


async def test_wrong_join_codes_are_limited_and_right_ones_never_count(app: FastAPI) -> None:
    code = await teacher_and_class(app.state.database)
    first, _ = await make_student(app.state.database)
    second, _ = await make_student(app.state.database)
    elsewhere, _ = await make_student(app.state.database)
    async with client_from(app, "203.0.113.9") as school, client_from(app, "192.0.2.9") as home:
        for _ in range(6):  # the right code, however often: never a guess
            assert (await _join(school, first, code)).status_code == 200
        for _ in range(3):
            assert (await _join(school, first, "WRONGONE")).status_code == 404
        refused = await _join(school, first, "WRONGTWO")
        assert_refused(refused, at_most_s=600)
        # Over the limit even the right code is refused: the answer tells a guesser nothing.
        assert_refused(await _join(school, first, code), at_most_s=600)

        # The school's address has five: the first student's three and two more.
        for _ in range(2):
            assert (await _join(school, second, "WRONGONE")).status_code == 404
        assert_refused(await _join(school, second, "WRONGONE"), at_most_s=600)
        # A student elsewhere is not held back by them.
        assert (await _join(home, elsewhere, "WRONGONE")).status_code == 404

        # The pages refuse alike: the join link, and the form (keeping what was typed).
        link = await school.get("/join/WRONGTHREE", headers=second)
        assert_refused(link, at_most_s=600)
        form = await school.post("/join", data={"join_code": "TYPED-CODE"}, headers=second)
        seconds = assert_refused(form, at_most_s=600)
        assert 'value="TYPED-CODE"' in form.text
        assert f"try again in {seconds} seconds" in form.text


async def test_a_join_link_tells_a_visitor_nothing_about_the_code(app: FastAPI) -> None:
    code = await teacher_and_class(app.state.database)
    async with client_from(app) as visitor:
        real = await visitor.get(f"/join/{code}")
        made_up = await visitor.get("/join/NOSUCHCD")
    assert (real.status_code, made_up.status_code) == (303, 303)
    assert real.headers["location"].replace(code, "X") == made_up.headers["location"].replace(
        "NOSUCHCD", "X"
    )
    assert real.text == made_up.text


async def test_join_guesses_at_once_stop_at_the_limit(live_app: FastAPI) -> None:
    headers, _ = await make_student(live_app.state.database)
    async with client_from(live_app, "198.51.100.44") as client:
        answers = await asyncio.gather(
            *(_join(client, headers, "NOTACODE") for _ in range(AT_ONCE))
        )
    assert Counter(response.status_code for response in answers) == {404: 3, 429: AT_ONCE - 3}


# --- long polls --------------------------------------------------------------------------


async def _timed(request: Awaitable[httpx.Response]) -> tuple[float, httpx.Response]:
    started = time.monotonic()
    response = await request
    return time.monotonic() - started, response


async def test_a_user_holds_a_few_waits_at_once_and_the_newest_win(live_app: FastAPI) -> None:
    """Twenty `?wait=` polls of one user on a submission that stays queued: all but the
    newest three answer at once with the submission as it stands; a POST with `?wait=`
    counts too; another user's requests stay fast meanwhile."""
    headers, user_id = await make_student(live_app.state.database)
    other, _ = await make_student(live_app.state.database)
    # Long enough that "cut short" (under half of it) and "ran its course" stay apart on a
    # loaded 2-core CI machine: 17 answers in 4 s missed there once.
    wait_s = 16
    async with client_from(live_app) as client:
        created = await client.post(
            f"/api/exercises/{EXERCISE}/submissions", json={"code": "pass"}, headers=headers
        )
        ident = created.json()["id"]
        polls = []
        for _ in range(20):
            polls.append(
                asyncio.create_task(
                    _timed(client.get(f"/api/submissions/{ident}?wait={wait_s}", headers=headers))
                )
            )
            await asyncio.sleep(0.05)  # started in order: the first ones are the oldest
        done, pending = await asyncio.wait(polls[:17], timeout=wait_s / 2)
        assert not pending, "the oldest waits were not cut short"
        for task in done:
            seconds, response = task.result()
            assert response.status_code == 200
            assert response.json()["status"] == "queued"
            assert seconds < wait_s / 2
        assert not any(task.done() for task in polls[17:]), "the newest waits were cut short"

        # Someone else is not slowed down by them.
        started = time.monotonic()
        assert (await client.get("/api/tracks", headers=other)).status_code == 200
        mine = await client.get(f"/api/submissions/{ident}", headers=other)
        assert mine.status_code == 404
        assert time.monotonic() - started < 2

        # A POST that waits is one more: the oldest of the three left answers at once.
        posted = asyncio.create_task(
            _timed(
                client.post(
                    f"/api/exercises/{EXERCISE}/runs?wait={wait_s}",
                    json={"code": "pass"},
                    headers=headers,
                )
            )
        )
        done, _ = await asyncio.wait([polls[17]], timeout=wait_s / 2)
        assert done, "the oldest wait outlived a newer POST ?wait="
        assert not polls[18].done() and not polls[19].done()
        rest = await asyncio.gather(*polls[18:], posted)
    for seconds, response in rest:
        assert response.status_code in (200, 202)
        assert seconds >= wait_s - 1  # these ran their course
    assert live_app.state.long_polls.held(user_id) == 0


async def test_polling_more_submissions_than_the_cap_at_once_does_not_spin(
    live_app: FastAPI,
) -> None:
    """A client that waits on one submission more than the cap allows, and polls again as
    soon as it is answered (what a script grading five submissions at once does), must not
    make its own waits cut each other in a loop: each wait is held a second at least before
    a newer one ends it, so its polls stay a few a second, not hundreds, and another user's
    request is answered at once meanwhile."""
    headers, user_id = await make_student(live_app.state.database)
    other, _ = await make_student(live_app.state.database)
    per_user = int(LIMITS["long_polls_per_user"])  # type: ignore[call-overload]
    answers = 0
    async with client_from(live_app) as client:
        idents = []
        for _ in range(per_user + 1):
            created = await client.post(
                f"/api/exercises/{EXERCISE}/submissions", json={"code": "pass"}, headers=headers
            )
            assert created.status_code == 202, created.text
            idents.append(created.json()["id"])
        deadline = time.monotonic() + 3

        async def poll_until_deadline(ident: int) -> None:
            nonlocal answers
            while time.monotonic() < deadline:
                response = await client.get(f"/api/submissions/{ident}?wait=10", headers=headers)
                assert response.status_code == 200
                assert response.json()["status"] == "queued"
                answers += 1

        polling = asyncio.gather(*(poll_until_deadline(ident) for ident in idents))
        await asyncio.sleep(1.5)
        started = time.monotonic()
        assert (await client.get("/api/tracks", headers=other)).status_code == 200
        assert time.monotonic() - started < 1
        await polling
    # Held a second each before being cut: about one answer a second per poll beyond the
    # cap, and the first ones are cut only after a second. Spinning gave thousands.
    assert answers <= 4 * (per_user + 1), answers
    assert live_app.state.long_polls.held(user_id) == 0


# --- the counts themselves ---------------------------------------------------------------


async def test_windows_that_ended_are_swept_and_a_hit_given_back_is_not_counted(
    db: Database,
) -> None:
    limit = limits.Limit("test", 1, 60, "Too many; try again in %(seconds)s seconds.")
    long_ago = utcnow() - timedelta(hours=1)
    async with db.writer() as session, session.begin():
        await limits.take(session=session, limit=limit, subject="old", now=long_ago)
        taken = await limits.take(session=session, limit=limit, subject="new")
        with pytest.raises(limits.LimitReached) as refused:
            await limits.take(session=session, limit=limit, subject="new")
        assert 1 <= refused.value.retry_after_s <= 60
        for _ in range(3):  # back to none, and never below
            await limits.give_back(session=session, taken=taken)
        await limits.take(session=session, limit=limit, subject="new")
        with pytest.raises(limits.LimitReached):
            await limits.take(session=session, limit=limit, subject="new")
        rows = (await session.execute(select(RateCount.key, RateCount.hits))).all()
    # The window of an hour ago was swept when the new one began.
    assert sorted(rows) == [("test:new", 2)]
