"""Assignment and Grade Services against the independent platform (lti1p3platform, its own
process, tests/app/lti/lms.py): a learner launched through a link with a line item, whose
progress changes, gets the 0-1 score at the platform's score endpoint, through a token
from its token URL (client credentials with the tool's signed assertion); and scores
written while the platform is down arrive, in order, once it is up again."""

from __future__ import annotations

import uuid
from datetime import timedelta

import httpx
from fastapi import FastAPI
from sqlalchemy import select, update

from app.db import Database
from app.grading import recording
from app.lessons.catalog import live_exercise
from app.lti import grades, outbox, service
from app.lti.tokens import AccessTokens
from app.models import (
    Exercise,
    Lesson,
    Regrade,
    RegradeResult,
    RegradeStatus,
    Submission,
    SubmissionStatus,
    Verdict,
    utcnow,
)
from app.models.lti import LtiLineItem, LtiScore
from app.submissions import regrade
from app.submissions import service as submissions
from app.submissions.regrade import exercise_fingerprint
from tests.app.lti.conftest import (
    CLIENT_ID,
    DEPLOYMENT_ID,
    TOOL,
    give_tool_keys,
    running_platform,
)
from tests.app.lti.flow import RunningPlatform, launch
from tests.helpers import meta_csrf

LESSON = "tensor-basics"
EXERCISE = "tensor-basics-grid"
RIGHT = ("tensor-basics-default-dtype", 1)  # multiple choice, option B is right
WRONG = ("tensor-basics-default-dtype", 0)
SECOND_RIGHT: tuple[str, object] = ("tensor-basics-count-up", ["arange", "3"])


def _line_item() -> str:
    return f"li-{uuid.uuid4().hex[:8]}"


async def _answer(browser: httpx.AsyncClient, question: tuple[str, object]) -> None:
    page = await browser.get(f"/lessons/{LESSON}")
    answer = await browser.post(
        f"/api/questions/{question[0]}/answers",
        json={"answer": question[1]},
        headers={"X-CSRF-Token": meta_csrf(page.text)},
    )
    assert answer.status_code == 200, answer.text


async def _received(platform: RunningPlatform, line_item: str) -> list[dict[str, object]]:
    async with httpx.AsyncClient() as client:
        scores: list[dict[str, object]] = (
            await client.get(f"{platform.url}/scores/{line_item}")
        ).json()
        return scores


async def test_a_right_answer_sends_the_lessons_new_score_to_the_platform(
    browser: httpx.AsyncClient, advantage: RunningPlatform, db: Database
) -> None:
    line_item, learner = _line_item(), f"s-{uuid.uuid4().hex[:6]}"
    answer = await launch(
        browser, advantage, user=learner, role="Learner", lesson=LESSON, lineitem=line_item
    )
    assert answer.status_code == 303, answer.text
    await _answer(browser, WRONG)  # no change of score: nothing new to send
    await _answer(browser, RIGHT)
    delivered = await outbox.deliver_due(database=db, tokens=AccessTokens())
    assert (delivered.sent, delivered.postponed, delivered.refused) == (2, 0, 0)

    scores = await _received(advantage, line_item)
    assert [score["userId"] for score in scores] == [learner, learner]
    first, second = scores
    assert (first["scoreGiven"], first["activityProgress"]) == (0.0, "Initialized")
    assert second["scoreMaximum"] == 1 and 0 < float(str(second["scoreGiven"])) < 1
    assert second["activityProgress"] == "InProgress"
    assert second["gradingProgress"] == "FullyGraded"
    assert str(second["timestamp"]) > str(first["timestamp"])
    async with db.sessionmaker() as session:
        item = await session.scalar(
            select(LtiLineItem).where(LtiLineItem.url == f"{advantage.url}/lineitems/{line_item}")
        )
        assert item is not None and item.lesson_slug == LESSON and item.exercise_id is None
        pending = await session.scalar(
            select(LtiScore.id).where(LtiScore.line_item_id == item.id, LtiScore.sent_at.is_(None))
        )
        assert pending is None
    # Delivered once: another round sends nothing again.
    again = await outbox.deliver_due(database=db, tokens=AccessTokens())
    assert again.sent == 0


async def test_an_instructors_launch_sends_no_score(
    browser: httpx.AsyncClient, advantage: RunningPlatform, db: Database
) -> None:
    line_item = _line_item()
    answer = await launch(
        browser, advantage, user="t-grades", role="Instructor", lesson=LESSON, lineitem=line_item
    )
    assert answer.status_code == 303, answer.text
    await _answer(browser, RIGHT)
    delivered = await outbox.deliver_due(database=db, tokens=AccessTokens())
    assert delivered.sent == 0
    assert await _received(advantage, line_item) == []


async def test_scores_written_while_the_platform_is_down_arrive_in_order_once_it_is_up(
    app: FastAPI, db: Database
) -> None:
    """A platform of its own stops (its port refuses connections) after a learner's
    launch; the learner's new scores wait in the outbox; each round of delivery (a fresh
    token cache each time, as after a restart) postpones the oldest and holds the later
    ones behind it; the platform started again at the same address gets every score,
    oldest first, once."""
    line_item, learner = _line_item(), f"s-{uuid.uuid4().hex[:6]}"
    async with httpx.AsyncClient(
        mounts={TOOL: httpx.ASGITransport(app=app), "http://127.0.0.1": httpx.AsyncHTTPTransport()},
        base_url=TOOL,
    ) as browser:
        with running_platform(TOOL) as lms:
            await _register(db, lms)
            await give_tool_keys(db, lms)
            answer = await launch(
                browser, lms, user=learner, role="Learner", lesson=LESSON, lineitem=line_item
            )
            assert answer.status_code == 303, answer.text
        port = int(lms.url.rsplit(":", 1)[1])
        # The platform is down from here on.
        await _answer(browser, RIGHT)
        await _answer(browser, SECOND_RIGHT)

    down = await outbox.deliver_due(database=db, tokens=AccessTokens())
    assert (down.sent, down.postponed) == (0, 1)
    async with db.sessionmaker() as session:
        queued = list(
            await session.scalars(
                select(LtiScore).where(LtiScore.subject == learner).order_by(LtiScore.id)
            )
        )
    assert [row.sent_at for row in queued] == [None, None, None]
    assert [row.attempts for row in queued] == [1, 0, 0]  # the later ones wait behind it
    assert queued[0].next_attempt_at > utcnow()
    assert "token URL" in (queued[0].last_error or "")
    still_down = await outbox.deliver_due(database=db, tokens=AccessTokens())
    assert (still_down.sent, still_down.postponed) == (0, 0)  # not due yet: not tried

    with running_platform(TOOL, port=port) as back:
        # The platform's fake keeps its settings in memory: given the tool's keys again.
        await give_tool_keys(db, back)
        an_hour_later = utcnow() + timedelta(hours=1)
        up = await outbox.deliver_due(database=db, now=an_hour_later, tokens=AccessTokens())
        assert (up.sent, up.postponed, up.refused) == (3, 0, 0)
        scores = await _received(back, line_item)
        assert [score["userId"] for score in scores] == [learner] * 3
        given = [float(str(score["scoreGiven"])) for score in scores]
        assert given[0] == 0.0 and given[0] < given[1] < given[2]
        stamps = [str(score["timestamp"]) for score in scores]
        assert stamps == sorted(stamps)
        again = await outbox.deliver_due(database=db, now=an_hour_later, tokens=AccessTokens())
        assert again.sent == 0
        assert len(await _received(back, line_item)) == 3


async def _register(db: Database, lms: RunningPlatform) -> None:
    async with db.sessionmaker() as session, session.begin():
        await service.add_platform(
            session=session,
            issuer=lms.url,
            client_id=CLIENT_ID,
            deployment_ids=[DEPLOYMENT_ID],
            auth_url=f"{lms.url}/auth",
            token_url=f"{lms.url}/token",
            jwks_url=f"{lms.url}/jwks",
        )


async def test_a_passed_exercise_sends_full_marks_to_its_own_line_item(
    browser: httpx.AsyncClient, advantage: RunningPlatform, db: Database
) -> None:
    """A deep-linked exercise (custom parameter `exercise`): 0 at the launch, 1 once a
    graded submission passes, recorded as the graders record it."""
    line_item, learner = _line_item(), f"s-{uuid.uuid4().hex[:6]}"
    answer = await launch(
        browser, advantage, user=learner, role="Learner", exercise=EXERCISE, lineitem=line_item
    )
    assert answer.status_code == 303, answer.text
    assert answer.headers["location"] == f"/lessons/{LESSON}#exercise-{EXERCISE}"
    await _answer(browser, RIGHT)  # the lesson's progress; not this exercise's score
    await _pass_exercise(db, learner)
    delivered = await outbox.deliver_due(database=db, tokens=AccessTokens())
    assert delivered.sent == 2
    scores = await _received(advantage, line_item)
    assert [(s["scoreGiven"], s["activityProgress"]) for s in scores] == [
        (0.0, "Initialized"),
        (1.0, "Completed"),
    ]


async def _pass_exercise(db: Database, learner: str) -> int:
    """A graded submission of EXERCISE by the learner, passed, recorded as the graders
    record it; its id."""
    async with db.sessionmaker() as session, session.begin():
        user_id = await session.scalar(
            select(LtiScore.user_id).where(LtiScore.subject == learner).limit(1)
        )
        assert user_id is not None
        exercise = await live_exercise(session=session, exercise_id=EXERCISE)
        assert exercise is not None
        submission = await submissions.create_submission(
            session=session, user_id=user_id, exercise=exercise, code="print(1)\n"
        )
        runs = [_run(device, "passed") for device in submission.devices]
        recorded = await recording.record_runs(
            session=session, submission_id=submission.id, runs=runs
        )
        assert recorded == "recorded"
        return submission.id


async def test_a_regrade_that_fails_a_passed_submission_sends_the_lower_score(
    browser: httpx.AsyncClient, advantage: RunningPlatform, db: Database
) -> None:
    """A regrade applied (the exercise's check changed; the submission no longer passes):
    the exercise's column gets 0 again after its 1."""
    line_item, learner = _line_item(), f"s-{uuid.uuid4().hex[:6]}"
    answer = await launch(
        browser, advantage, user=learner, role="Learner", exercise=EXERCISE, lineitem=line_item
    )
    assert answer.status_code == 303, answer.text
    submission_id = await _pass_exercise(db, learner)
    async with db.sessionmaker() as session, session.begin():
        submission = await session.get_one(Submission, submission_id)
        exercise = await session.get_one(Exercise, EXERCISE)
        made = Regrade(
            exercise_id=EXERCISE,
            reason="the expected output changed",
            fingerprint=exercise_fingerprint(exercise),
            status=RegradeStatus.READY,
            total=1,
        )
        session.add(made)
        await session.flush()
        session.add(
            RegradeResult(
                regrade_id=made.id,
                submission_id=submission_id,
                user_id=submission.user_id,
                old_verdict=Verdict.PASSED,
                new_status=SubmissionStatus.DONE,
                new_verdict=Verdict.WRONG_OUTPUT,
                runs=[_run(device, "wrong_output") for device in submission.devices],
                graded_at=utcnow(),
            )
        )
        await session.flush()
        assert await regrade.apply(session=session, regrade=made, user_id=None) == 1
    delivered = await outbox.deliver_due(database=db, tokens=AccessTokens())
    assert delivered.sent == 3
    scores = await _received(advantage, line_item)
    assert [s["scoreGiven"] for s in scores] == [0.0, 1.0, 0.0]


def _run(device: str, verdict: str) -> dict[str, object]:
    return {
        "device": device,
        "verdict": verdict,
        "stdout": "",
        "stderr": "",
        "exit_code": 0,
        "duration_ms": 5,
        "diff": "" if verdict == "passed" else "-1\n+2\n",
        "hint": None,
        "detail": None,
    }


async def test_a_retired_lesson_sends_nothing_over_the_grade_it_had(
    browser: httpx.AsyncClient, advantage: RunningPlatform, db: Database
) -> None:
    line_item, learner = _line_item(), f"s-{uuid.uuid4().hex[:6]}"
    answer = await launch(
        browser, advantage, user=learner, role="Learner", lesson=LESSON, lineitem=line_item
    )
    assert answer.status_code == 303, answer.text
    await _answer(browser, RIGHT)
    async with db.sessionmaker() as session, session.begin():
        user_id = await session.scalar(
            select(LtiScore.user_id).where(LtiScore.subject == learner).limit(1)
        )
        assert user_id is not None
        await session.execute(update(Lesson).where(Lesson.slug == LESSON).values(retired=True))
        await grades.progress_changed(session=session, user_ids=[user_id], lesson_slug=LESSON)
        queued = list(await session.scalars(select(LtiScore).where(LtiScore.subject == learner)))
    assert [row.score_given > 0 for row in queued] == [False, True]
