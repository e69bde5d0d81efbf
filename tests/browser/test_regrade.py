"""A teacher asks for a regrade from the class pages, sees whose result would flip in the
class before anything changes, and applies it (both languages, axe-clean). The stored
submissions are written straight into the server's database with verdicts that their code
does not earn, so that grading them again flips them without touching the course."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import pytest
from sqlalchemy import select

from app.config import REPO_ROOT, async_database_url
from app.db import Database
from app.models import (
    ClassMember,
    Classroom,
    Role,
    Submission,
    SubmissionMode,
    SubmissionStatus,
    User,
    Verdict,
    utcnow,
)
from tests.browser.conftest import (
    VisitorFactory,
    create_teacher,
    log_in,
    no_sideways_scroll,
    unique,
)
from tests.processes import Web

T = TypeVar("T")
EXERCISE = "gpu-support-device-independent"
SOLUTION = (
    REPO_ROOT / "exercises/lessons/gpu-support/exercises" / EXERCISE / "solution.py"
).read_text()
WORDS = {
    "en": {"ready": "Ready", "applied": "Applied: the new results"},
    "tr": {"ready": "Hazır", "applied": "Uygulandı: yeni sonuçlar"},
}


async def _seed(server: Web, teacher: str) -> tuple[int, str, str, int]:
    """A class of the teacher's with two students: one holds a wrong answer stored as passed,
    the other the sample solution stored as wrong. (class id, names, the first's submission)"""
    url = f"sqlite:///{server.data_dir / 'tensorcamp.db'}"  # type: ignore[attr-defined]
    db = Database.from_url(async_database_url(url))
    try:
        async with db.writer() as session, session.begin():
            owner = await session.scalar(select(User.id).where(User.username == teacher))
            classroom = Classroom(
                teacher_id=owner, name=unique("Regrade "), join_code=uuid.uuid4().hex[:12]
            )
            ada, bob = (User(username=unique("s"), password_hash="-", role=Role.STUDENT)
                        for _ in range(2))  # fmt: skip
            session.add_all([classroom, ada, bob])
            await session.flush()
            now = utcnow()
            wrong_but_passed = Submission(
                user_id=ada.id, exercise_id=EXERCISE, code='print("no")\n',
                mode=SubmissionMode.GRADE, status=SubmissionStatus.DONE, verdict=Verdict.PASSED,
                devices=["cpu"], runs=[], dispatched_at=now, finished_at=now,
            )  # fmt: skip
            right_but_failed = Submission(
                user_id=bob.id, exercise_id=EXERCISE, code=SOLUTION,
                mode=SubmissionMode.GRADE, status=SubmissionStatus.DONE,
                verdict=Verdict.WRONG_OUTPUT, devices=["cpu"], runs=[], dispatched_at=now,
                finished_at=now,
            )  # fmt: skip
            session.add_all(
                [
                    ClassMember(class_id=classroom.id, student_id=ada.id),
                    ClassMember(class_id=classroom.id, student_id=bob.id),
                    wrong_but_passed,
                    right_but_failed,
                ]
            )
            await session.flush()
            return classroom.id, ada.username, bob.username, wrong_but_passed.id
    finally:
        await db.dispose()


async def _verdict(server: Web, submission_id: int) -> Verdict | None:
    url = f"sqlite:///{server.data_dir / 'tensorcamp.db'}"  # type: ignore[attr-defined]
    db = Database.from_url(async_database_url(url))
    try:
        async with db.sessionmaker() as session:
            return (await session.get_one(Submission, submission_id)).verdict
    finally:
        await db.dispose()


def in_thread(work: Coroutine[Any, Any, T]) -> T:
    """Run database work on its own loop: Playwright's sync API holds this thread's."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, work).result()


def fits_a_phone_and_a_laptop(page: Any) -> None:
    """Nothing scrolls sideways at 390 px or 1366 px (then back to the usual 1200 px)."""
    for width, height in ((390, 844), (1366, 900)):
        page.set_viewport_size({"width": width, "height": height})
        no_sideways_scroll(page)
    page.set_viewport_size({"width": 1200, "height": 900})


@pytest.mark.parametrize("lang", ["en", "tr"])
def test_a_teacher_previews_a_regrade_and_applies_it(
    visitor_factory: VisitorFactory, server: Web, lang: str
) -> None:
    words = WORDS[lang]
    teacher = unique("teacher")
    create_teacher(server, teacher)
    class_id, ada, bob, ada_submission = in_thread(_seed(server, teacher))
    v = visitor_factory(lang)
    log_in(v, teacher)

    page = v.go(f"/classes/{class_id}/regrades")
    v.expect_language()
    v.audit("regrades")
    fits_a_phone_and_a_laptop(page)
    page.select_option("#regrade-exercise", EXERCISE)
    page.fill("#regrade-reason", "Check the stored verdicts")
    page.locator("main form button[type=submit]").click()
    page.wait_for_url(f"{v.base}/classes/{class_id}/regrades/*")
    for _ in range(60):
        if page.locator(".regrade-status").inner_text() == words["ready"]:
            break
        page.wait_for_timeout(500)
        page.reload()
    assert page.locator(".regrade-status").inner_text() == words["ready"]
    assert page.locator("ul.to-failed li").all_inner_texts() == [ada]
    assert page.locator("ul.to-passed li").all_inner_texts() == [bob]
    v.audit("regrade preview")
    v.shot("regrade-preview")
    fits_a_phone_and_a_laptop(page)
    # Nothing changed before apply.
    assert in_thread(_verdict(server, ada_submission)) == Verdict.PASSED

    page.locator("form[action$='/apply'] button").click()
    page.wait_for_load_state()
    assert words["applied"] in page.locator("main .alert").inner_text()
    v.audit("regrade applied")
    assert in_thread(_verdict(server, ada_submission)) == Verdict.WRONG_OUTPUT
