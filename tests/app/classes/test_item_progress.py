"""The students' records (app/item_progress.py: one row per student and item, read by the
grid and insight instead of every answer and graded submission) always equal what the
answers and submissions say: after each kind of event, the table is compared with the
same rows made again from the raw tables (`item_progress.recomputed`)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from alembic import command
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app import item_progress
from app.config import Settings
from app.content import sync_catalog
from app.content.loader import Catalog
from app.db import Database, make_engine
from app.grading import recording
from app.migrations import alembic_config
from app.models import (
    Exercise,
    ItemProgress,
    Lesson,
    Question,
    QuestionAttempt,
    Regrade,
    RegradeResult,
    RegradeStatus,
    Submission,
    SubmissionMode,
    SubmissionStatus,
    Track,
    User,
    utcnow,
)
from app.submissions import regrade, service
from tests.app.classes.conftest import (
    LESSON,
    OTHER_LESSON,
    World,
    lesson_items,
    right_answer,
    wrong_answer,
)

Row = tuple[Any, ...]


TIMES = {item_progress.COLUMNS.index("last_at"), item_progress.COLUMNS.index("first_ok_at")}


def _moment(value: Any) -> Any:
    """A time as one comparable value (SQLite hands back what it stored for aggregates)."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if isinstance(value, datetime):
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    return value


def _rows(rows: Any) -> set[Row]:
    return {tuple(_moment(v) if i in TIMES else v for i, v in enumerate(row)) for row in rows}


async def kept_and_recomputed(session: AsyncSession, users: list[int]) -> tuple[set[Row], set[Row]]:
    kept = await session.execute(
        select(*(getattr(ItemProgress, name) for name in item_progress.COLUMNS)).where(
            ItemProgress.user_id.in_(users)
        )
    )
    made: set[Row] = set()
    for part in item_progress.recomputed(users=users):
        made |= _rows(await session.execute(part))
    return _rows(kept), made


async def assert_true_to_the_raw_rows(db: Database, *users: int) -> set[Row]:
    async with db.sessionmaker() as session:
        kept, made = await kept_and_recomputed(session, list(users))
    assert kept == made
    return kept


def run(device: str, verdict: str) -> dict[str, Any]:
    return {
        "device": device,
        "verdict": verdict,
        "stdout": "1\n" if verdict == "passed" else "2\n",
        "stderr": "",
        "exit_code": 0,
        "duration_ms": 12,
        "diff": "",
        "detail": "the sandbox failed" if verdict == "error" else None,
    }


async def graded(
    db: Database,
    user_id: int,
    exercise_id: str,
    verdict: str,
    *,
    mode: SubmissionMode = SubmissionMode.GRADE,
    tries_left: bool = False,
) -> int:
    """A submission made and recorded as the graders' results come back (the service)."""
    async with db.sessionmaker() as session:
        made = await service.create_submission(
            session=session,
            user_id=user_id,
            exercise=service.Gradable(exercise_id, ["cpu"]),
            code="print(1)\n",
            mode=mode,
        )
        if not tries_left:  # a platform fault on the last try is recorded, not retried
            await session.execute(
                update(Submission).where(Submission.id == made.id).values(attempts=9)
            )
        await session.commit()
        submission_id = made.id
    async with db.sessionmaker() as session:
        outcome = await recording.record_runs(
            session=session, submission_id=submission_id, runs=[run("cpu", verdict)]
        )
        await session.commit()
    assert outcome == ("retry" if tries_left else "recorded")
    return submission_id


async def answer(client: httpx.AsyncClient, world: World, question: Question, right: bool) -> None:
    response = await client.post(
        f"/api/questions/{question.id}/answers",
        json={"answer": right_answer(question) if right else wrong_answer(question)},
        headers=world.member.headers,
    )
    assert response.status_code == 200, response.text


async def test_answers_right_and_wrong_are_counted_as_recorded(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    questions, _ = await lesson_items(db)
    first, second = questions[0], questions[1]
    await answer(client, world, first, right=False)
    await answer(client, world, first, right=False)
    await answer(client, world, first, right=True)
    await answer(client, world, first, right=False)  # after the first success
    await answer(client, world, second, right=True)
    kept = await assert_true_to_the_raw_rows(db, world.member.id)
    by_item = {row[2]: row for row in kept}
    # (user, kind, item, lesson, attempts, last, first right, its attempt's number)
    assert by_item[first.id][4] == 4 and by_item[first.id][7] == 3
    assert by_item[second.id][4] == 1 and by_item[second.id][7] == 1
    assert by_item[first.id][3] == LESSON


async def test_graded_submissions_count_errors_and_try_outs_do_not(
    db: Database, world: World
) -> None:
    _, exercises = await lesson_items(db)
    user = world.member.id
    await graded(db, user, exercises[0].id, "wrong_output")
    await assert_true_to_the_raw_rows(db, user)
    await graded(db, user, exercises[0].id, "error")  # the platform's fault, not an attempt
    await graded(db, user, exercises[0].id, "passed", mode=SubmissionMode.RUN)  # a try-out
    retried = await graded(db, user, exercises[1].id, "error", tries_left=True)
    kept = await assert_true_to_the_raw_rows(db, user)
    assert {row[2]: row[4] for row in kept} == {exercises[0].id: 1}
    async with db.sessionmaker() as session:
        status = await session.scalar(select(Submission.status).where(Submission.id == retried))
    assert status == SubmissionStatus.QUEUED  # to be tried again: nothing counted yet
    await graded(db, user, exercises[0].id, "passed")
    await graded(db, user, exercises[0].id, "wrong_output")
    kept = await assert_true_to_the_raw_rows(db, user)
    [row] = kept
    assert row[4] == 3 and row[7] == 2  # passed at the second graded attempt


async def test_a_regrade_applied_rewrites_the_records(db: Database, world: World) -> None:
    _, exercises = await lesson_items(db)
    exercise_id, user = exercises[0].id, world.member.id
    first = await graded(db, user, exercise_id, "wrong_output")
    second = await graded(db, user, exercise_id, "passed")
    before = await assert_true_to_the_raw_rows(db, user)
    assert [row[7] for row in before] == [2]
    async with db.sessionmaker() as session:
        exercise = await session.get_one(Exercise, exercise_id)
        made = Regrade(
            exercise_id=exercise_id,
            reason="test",
            fingerprint=regrade.exercise_fingerprint(exercise),
            status=RegradeStatus.READY,
            total=2,
        )
        session.add(made)
        await session.flush()
        flips = [(first, "wrong_output", "passed"), (second, "passed", "wrong_output")]
        for submission_id, old, new in flips:
            session.add(
                RegradeResult(
                    regrade_id=made.id,
                    submission_id=submission_id,
                    user_id=user,
                    old_verdict=old,
                    new_status=SubmissionStatus.DONE,
                    new_verdict=new,
                    runs=[run("cpu", new)],
                    graded_at=utcnow(),
                )
            )
        await session.flush()
        assert await regrade.apply(session=session, regrade=made, user_id=None) == 2
        await session.commit()
    after = await assert_true_to_the_raw_rows(db, user)
    assert [row[7] for row in after] == [1]  # now right at the first attempt


async def test_reveals_give_ups_retirement_and_removal_leave_them_true(
    client: httpx.AsyncClient, db: Database, world: World
) -> None:
    questions, exercises = await lesson_items(db)
    user, h = world.member.id, world.teacher.headers
    await answer(client, world, questions[0], right=False)
    revealed = await client.post(
        f"/api/questions/{questions[0].id}/reveal", headers=world.member.headers
    )
    assert revealed.status_code == 200, revealed.text
    await graded(db, user, exercises[0].id, "wrong_output")
    gave_up = await client.post(
        f"/api/exercises/{exercises[0].id}/give-up", headers=world.member.headers
    )
    assert gave_up.status_code == 200, gave_up.text
    kept = await assert_true_to_the_raw_rows(db, user)
    assert len(kept) == 2

    def cell(progress: dict[str, Any]) -> dict[str, Any]:
        return next(
            c for c in progress["cells"] if c["student_id"] == user and c["lesson_slug"] == LESSON
        )

    shown = cell((await client.get(f"/api/classes/{world.class_id}/progress", headers=h)).json())
    assert shown["attempts"] == 2 and shown["exercises_given_up"] == 1
    assert shown["answers_requested"] == 1
    # Retired: the rows stay (the item may come back), the grid stops counting it.
    async with db.sessionmaker() as session:
        await session.execute(
            update(Question).where(Question.id == questions[0].id).values(retired=True)
        )
        await session.commit()
    assert await assert_true_to_the_raw_rows(db, user) == kept
    shown = cell((await client.get(f"/api/classes/{world.class_id}/progress", headers=h)).json())
    assert shown["attempts"] == 1 and shown["questions_total"] == len(questions) - 1
    # Removed from the class: their records are theirs, kept.
    removed = await client.delete(
        f"/api/classes/{world.class_id}/students/{user}", headers=world.teacher.headers
    )
    assert removed.status_code in (200, 204), removed.text
    assert await assert_true_to_the_raw_rows(db, user) == kept


async def test_an_item_moved_to_another_lesson_takes_its_records_along(
    client: httpx.AsyncClient, db: Database, world: World, content_catalog: Catalog
) -> None:
    questions, _ = await lesson_items(db)
    await answer(client, world, questions[0], right=True)
    async with db.sessionmaker() as session:
        await session.execute(
            update(Question).where(Question.id == questions[0].id).values(lesson_slug=OTHER_LESSON)
        )
        await item_progress.follow_lessons(
            session=session, questions=[questions[0].id], exercises=[]
        )
        await session.commit()
    [row] = await assert_true_to_the_raw_rows(db, world.member.id)
    assert row[3] == OTHER_LESSON
    async with db.writer() as session, session.begin():  # the catalog puts it back
        await sync_catalog(session=session, catalog=content_catalog)
    [row] = await assert_true_to_the_raw_rows(db, world.member.id)
    assert row[3] == LESSON


async def test_two_answers_recorded_at_once_both_count(db: Database, world: World) -> None:
    """The upsert adds in the database: neither overwrites the other."""
    questions, _ = await lesson_items(db)
    question = questions[0]
    async with db.sessionmaker() as session:
        at = utcnow()
        for n in range(2):
            await item_progress.answer_recorded(
                session=session,
                user_id=world.member.id,
                question=question,
                correct=n == 1,
                at=at + timedelta(seconds=n),
            )
        row = (await session.execute(select(ItemProgress))).scalars().one()
    assert (row.attempts, row.first_ok_n) == (2, 2)


# --- migration 0021 fills the table from what was recorded before it ---------------------


async def test_the_migration_fills_the_records_and_goes_down_cleanly(
    empty_database_url: str,
) -> None:
    config = alembic_config(empty_database_url)
    await asyncio.to_thread(command.upgrade, config, "0020")
    engine = make_engine(Settings(database_url=empty_database_url).effective_database_url)
    start = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
    try:
        # Made with today's models: they are 0020's tables (0021 only adds item_progress).
        async with AsyncSession(engine) as session, session.begin():
            session.add(Track(slug="t", title="T", level="l", position=0))
            await session.flush()  # no relationships: the unit of work does not order these
            session.add(Lesson(slug="l", track_slug="t", position=0, title="L", level="l",
                               summary="", body_html=""))  # fmt: skip
            await session.flush()
            for q in ("q1", "q2"):
                session.add(Question(id=q, lesson_slug="l", position=0, kind="fill_in",
                                     prompt_html="", public={}, key={},
                                     explanation_html=""))  # fmt: skip
            session.add(Exercise(id="e1", lesson_slug="l", position=0, title="E",
                                 prompt_html="", starter_code="", solution_code="",
                                 expected_output="1\n", devices=["cpu"], comparison={},
                                 limits={}))  # fmt: skip
            student = User(username="before-0021", password_hash="x", role="student")
            session.add(student)
            await session.flush()
            student_id = student.id
            for n, (question, right) in enumerate([("q1", False), ("q1", True), ("q2", False)]):
                session.add(QuestionAttempt(user_id=student_id, question_id=question, answer=0,
                                            correct=right,
                                            created_at=start + timedelta(minutes=n)))  # fmt: skip
            outcomes = [("done", "wrong_output"), ("error", None), ("done", "passed")]
            for n, (status, verdict) in enumerate(outcomes, start=60):
                session.add(Submission(user_id=student_id, exercise_id="e1", code="x",
                                       status=status, verdict=verdict,
                                       created_at=start + timedelta(minutes=n)))  # fmt: skip
        await asyncio.to_thread(command.upgrade, config, "0021")
        async with AsyncSession(engine) as session:
            kept, made = await kept_and_recomputed(session, [student_id])
        assert kept == made and len(kept) == 3
        by_item = {row[2]: row for row in kept}
        right_at = start + timedelta(minutes=1)
        assert by_item["q1"][3:] == ("l", 2, right_at, right_at, 2)
        assert by_item["q2"][3:] == ("l", 1, start + timedelta(minutes=2), None, None)
        passed_at = start + timedelta(hours=1, minutes=2)
        assert by_item["e1"][3:] == ("l", 2, passed_at, passed_at, 2)  # the error not counted
        # Down and up again: the table goes and comes back filled; nothing else is touched.
        await asyncio.to_thread(command.downgrade, config, "0020")
        async with AsyncSession(engine) as session:
            assert len((await session.scalars(select(Submission.id))).all()) == 3
            assert len((await session.scalars(select(QuestionAttempt.id))).all()) == 3
        await asyncio.to_thread(command.upgrade, config, "head")
        async with AsyncSession(engine) as session:
            assert (await kept_and_recomputed(session, [student_id]))[0] == kept
    finally:
        await engine.dispose()
