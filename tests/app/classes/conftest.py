"""Fixtures for the classes tests: people and a class made directly in the database (fast:
one password hash for everyone, tokens issued without logging in)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from app import item_progress
from app.auth.security import hash_password
from app.auth.service import issue_token
from app.classes import service
from app.db import Database
from app.lessons.service import get_lesson
from app.models import ClassAssignment, Exercise, Question, Submission, User, utcnow
from app.quizzes.kinds import kind_of
from tests.helpers import bearer, unique_name

PASSWORD = "correct horse"
_HASH = hash_password(PASSWORD)  # argon2 once per run, not once per user
LESSON = "tensor-basics"
OTHER_LESSON = "tensors-on-the-gpu"


@dataclass
class Person:
    id: int
    username: str
    token: str
    role: str

    @property
    def headers(self) -> dict[str, str]:
        return bearer(self.token)


async def recorded(session: Any, *user_ids: int) -> None:
    """History inserted straight into the tables skips the recording path: make those
    students' records (app/item_progress.py) from it, as migration 0021 does."""
    await item_progress.rebuild(session=session, users=list(user_ids))


async def add_person(session: Any, role: str = "student", username: str | None = None) -> Person:
    user = User(username=username or unique_name(role[0]), password_hash=_HASH, role=role)
    session.add(user)
    await session.flush()
    token = await issue_token(session=session, user=user)
    return Person(user.id, user.username, token, role)


async def add_students(session: Any, count: int, prefix: str = "s") -> list[int]:
    """Many students at once (no tokens), for volume."""
    users = [
        User(username=f"{prefix}{i:04d}{unique_name('')[:6]}", password_hash=_HASH)
        for i in range(count)
    ]
    session.add_all(users)
    await session.flush()
    return [u.id for u in users]


@dataclass
class World:
    """Two teachers, each with a class; a student in the first class, a student in the
    second. The first class has `LESSON` assigned."""

    teacher: Person
    other_teacher: Person
    member: Person
    outsider: Person
    class_id: int
    join_code: str
    other_class_id: int
    other_join_code: str
    extra: dict[str, Any] = field(default_factory=dict)

    def person(self, role: str) -> Person | None:
        return {
            "anonymous": None,
            "member": self.member,
            "outsider": self.outsider,
            "teacher": self.teacher,
            "other_teacher": self.other_teacher,
        }[role]


async def build_world(db: Database) -> World:
    async with db.sessionmaker() as session:
        teacher = await add_person(session, "teacher")
        other_teacher = await add_person(session, "teacher")
        member = await add_person(session)
        outsider = await add_person(session)
        mine = await service.create_class(session=session, teacher_id=teacher.id, name="Mine")
        theirs = await service.create_class(
            session=session, teacher_id=other_teacher.id, name="Theirs"
        )
        await service.join(session=session, student_id=member.id, code=mine.join_code)
        await service.join(session=session, student_id=outsider.id, code=theirs.join_code)
        await service.set_assignment(
            session=session, class_id=mine.id, lesson_slug=LESSON, due_at=None
        )
        world = World(
            teacher,
            other_teacher,
            member,
            outsider,
            mine.id,
            mine.join_code,
            theirs.id,
            theirs.join_code,
        )
        await session.commit()
    return world


@pytest.fixture
async def world(db: Database) -> World:
    return await build_world(db)


async def join_new_students(
    client: httpx.AsyncClient, db: Database, world: World, n: int
) -> list[Person]:
    """`n` new students, each joined to the world's class through the API."""
    async with db.sessionmaker() as session:
        people = [await add_person(session) for _ in range(n)]
        await session.commit()
    for person in people:
        joined = await client.post(
            "/api/classes/join", json={"join_code": world.join_code}, headers=person.headers
        )
        assert joined.status_code == 200
    return people


async def lesson_items(db: Database, slug: str = LESSON) -> tuple[list[Question], list[Exercise]]:
    async with db.sessionmaker() as session:
        detail = await get_lesson(session=session, slug=slug)
    assert detail is not None, slug
    return detail.questions, detail.exercises


def right_answer(question: Question) -> Any:
    kind = kind_of(question.kind)
    right = kind.correct_answer(kind.public_of(question.public), kind.key_of(question.key))
    return right.model_dump(mode="json")


def wrong_answer(question: Question) -> Any:
    """A well-formed answer that is wrong."""
    key, public = question.key, question.public
    if question.kind == "multiple_choice":
        wrong = next(i for i in range(len(public["options"])) if i not in key["correct"])
        return [wrong] if public["multiple"] else wrong
    if question.kind == "fill_in":
        return ["definitely-wrong"] * len(key["blanks"])
    if question.kind == "ordering":
        return right_answer(question)[::-1]
    if question.kind == "predict_output":
        return "definitely-wrong"
    pairs = dict(key["pairs"])
    lefts = list(pairs)
    rights = [pairs[left] for left in lefts]
    return dict(zip(lefts, rights[1:] + rights[:1], strict=True))


async def add_submission(
    db: Database,
    *,
    user_id: int,
    exercise_id: str,
    verdict: str,
    at: datetime | None = None,
    stdout: str = "",
    stderr: str = "",
    code: str = "print('hi')\n",
    status: str = "done",
    mode: str = "grade",
    devices: tuple[str, ...] = ("cpu",),
) -> int:
    runs = [
        {
            "device": device,
            "verdict": verdict,
            "stdout": stdout,
            "stderr": stderr,
            "exit_code": 1 if verdict == "runtime_error" else 0,
            "duration_ms": 12,
            "diff": "" if verdict == "passed" else "--- expected\n+++ actual\n-1\n+2\n",
        }
        for device in devices
    ]
    async with db.sessionmaker() as session:
        row = Submission(
            user_id=user_id,
            exercise_id=exercise_id,
            code=code,
            mode=mode,
            status=status,
            verdict=verdict if status == "done" else None,
            runs=runs if status == "done" else [],
            created_at=at or utcnow(),
            finished_at=(at or utcnow()) + timedelta(seconds=1) if status == "done" else None,
        )
        session.add(row)
        await session.flush()
        await recorded(session, user_id)
        await session.commit()
        return row.id


async def set_due(db: Database, class_id: int, slug: str, due: datetime | None) -> None:
    async with db.sessionmaker() as session:
        row = await session.scalar(
            select(ClassAssignment).where(
                ClassAssignment.class_id == class_id, ClassAssignment.lesson_slug == slug
            )
        )
        if row is None:
            session.add(ClassAssignment(class_id=class_id, lesson_slug=slug, due_at=due))
        else:
            row.due_at = due
        await session.commit()
