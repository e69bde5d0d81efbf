"""Syncing content into the database: idempotent, keyed by the content's own ids, retiring
rather than deleting, and never half-loading broken content. The tests change a small course
of their own (tests/app/content/course.py), synced over the built-in one."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from sqlalchemy import func, select

from app.config import REPO_ROOT
from app.content import Catalog, load_catalog, sync_catalog
from app.db import Database
from app.main import load_content
from app.models import Exercise, Lesson, Question, QuestionAttempt, Track
from tests import conftest as root
from tests.app.content.course import (
    CHOICE_ID,
    FILL_IN_ID,
    MATCHING_ID,
    SECOND,
    THIRD,
    THIRD_EXERCISE_ID,
    THIRD_LESSON,
    TRACKS,
    write_course,
)
from tests.helpers import make_student

MODELS = (Track, Lesson, Question, Exercise)
MC = CHOICE_ID  # a single choice; option 3 is the right one
FILL = FILL_IN_ID  # "to" fills its blank


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """The course of these tests, to change."""
    return write_course(tmp_path)


@pytest.fixture
def course(tree: Path) -> Catalog:
    """The course as written, before any test changes it."""
    return load_catalog(tree)


@pytest.fixture
async def synced(db: Database, course: Catalog) -> None:
    """The course of these tests is the live content (the built-in one retired)."""
    await sync(db, course)


def edit_questions(tree: Path, change: Any) -> None:
    path = tree / THIRD_LESSON / "questions.yaml"
    data = yaml.safe_load(path.read_text())
    change(data["questions"])
    path.write_text(yaml.safe_dump(data, sort_keys=False))


async def snapshot(db: Database) -> dict[str, list[dict[str, Any]]]:
    """Every content row, every column."""
    result: dict[str, list[dict[str, Any]]] = {}
    async with db.sessionmaker() as session:
        for model in MODELS:
            columns = [c.key for c in model.__table__.columns]
            rows = (await session.scalars(select(model))).all()
            result[model.__tablename__] = sorted(
                ({c: getattr(row, c) for c in columns} for row in rows),
                key=lambda r: str(r.get("slug") or r.get("id")),
            )
    return result


async def sync(db: Database, catalog: Catalog) -> None:
    async with db.sessionmaker() as session, session.begin():
        await sync_catalog(session=session, catalog=catalog)


async def attempts_of(db: Database, question_id: str) -> int:
    async with db.sessionmaker() as session:
        return (
            await session.scalar(
                select(func.count())
                .select_from(QuestionAttempt)
                .where(QuestionAttempt.question_id == question_id)
            )
        ) or 0


async def answer(
    client: httpx.AsyncClient, headers: dict[str, str], question_id: str, a: Any
) -> httpx.Response:
    return await client.post(
        f"/api/questions/{question_id}/answers", json={"answer": a}, headers=headers
    )


async def progress(client: httpx.AsyncClient, headers: dict[str, str]) -> dict[str, Any]:
    body = (await client.get("/api/me/progress", headers=headers)).json()
    return {row["slug"]: row for row in body["lessons"]}


async def test_syncing_twice_changes_nothing(db: Database, content_catalog: Catalog) -> None:
    before = await snapshot(db)
    assert len(before["questions"]) == sum(len(x.questions) for x in content_catalog.lessons)
    assert len(before["exercises"]) == sum(len(x.exercises) for x in content_catalog.lessons)
    await sync(db, content_catalog)
    await sync(db, load_catalog(REPO_ROOT / "exercises"))
    assert await snapshot(db) == before


def test_loading_the_same_files_twice_gives_the_same_catalog(tree: Path, tmp_path: Path) -> None:
    first, second = load_catalog(tree), load_catalog(write_course(tmp_path / "again"))
    for a, b in zip(first.lessons, second.lessons, strict=True):
        assert [(q.id, q.public, q.key) for q in a.questions] == [
            (q.id, q.public, q.key) for q in b.questions
        ]


async def test_editing_a_question_keeps_its_id_and_attempts(
    client: httpx.AsyncClient, db: Database, tree: Path, synced: None
) -> None:
    headers, _ = await make_student(db)
    assert (await answer(client, headers, MC, 3)).json()["correct"] is True
    before = await snapshot(db)

    def reword(questions: list[dict[str, Any]]) -> None:
        questions[0]["prompt"] = "Reworded: what happens when devices differ?"
        questions[0]["explanation"] = "Reworded explanation."
        questions[0]["options"][0] = "PyTorch silently copies the tensor."

    edit_questions(tree, reword)
    await sync(db, load_catalog(tree))

    after = await snapshot(db)
    assert [q["id"] for q in after["questions"]] == [q["id"] for q in before["questions"]]
    async with db.sessionmaker() as session:
        question = await session.get_one(Question, MC)
    assert question.prompt_html == "Reworded: what happens when devices differ?"
    assert question.explanation_html == "Reworded explanation."
    assert question.retired is False
    assert await attempts_of(db, MC) == 1
    lesson = (await client.get(f"/api/lessons/{THIRD}")).json()
    shown = next(q for q in lesson["questions"] if q["id"] == MC)
    assert shown["prompt_html"] == "Reworded: what happens when devices differ?"
    assert shown["options"][0] == "PyTorch silently copies the tensor."
    assert (await progress(client, headers))[THIRD]["questions_correct"] == 1
    # Everything else is as it was.
    others = [q for q in after["questions"] if q["id"] != MC]
    assert others == [q for q in before["questions"] if q["id"] != MC]


async def test_reordering_questions_keeps_their_ids(db: Database, tree: Path, synced: None) -> None:
    edit_questions(tree, lambda qs: qs.reverse())
    await sync(db, load_catalog(tree))
    async with db.sessionmaker() as session:
        rows = (
            await session.scalars(
                select(Question).where(Question.lesson_slug == THIRD).order_by(Question.position)
            )
        ).all()
    assert [q.id for q in rows] == [MATCHING_ID, FILL, MC]


async def test_a_removed_question_is_retired_and_its_attempts_kept(
    client: httpx.AsyncClient, db: Database, tree: Path, course: Catalog, synced: None
) -> None:
    headers, _ = await make_student(db)
    assert (await answer(client, headers, FILL, ["to"])).json()["correct"] is True
    assert (await answer(client, headers, FILL, ["cuda"])).json()["correct"] is False
    edit_questions(tree, lambda qs: qs.pop(1))
    await sync(db, load_catalog(tree))

    lesson = (await client.get(f"/api/lessons/{THIRD}")).json()
    assert FILL not in [q["id"] for q in lesson["questions"]]
    assert len(lesson["questions"]) == 2
    async with db.sessionmaker() as session:
        row = await session.get_one(Question, FILL)
        assert row.retired is True
    assert await attempts_of(db, FILL) == 2
    # Gone from the API and from progress; answering it is a 404.
    assert (await answer(client, headers, FILL, ["to"])).status_code == 404
    third = (await progress(client, headers))[THIRD]
    assert (third["questions_total"], third["questions_correct"]) == (2, 0)
    page = await client.get(f"/lessons/{THIRD}")
    assert f'id="q-{FILL}"' not in page.text

    # Putting it back revives it, with its attempts.
    await sync(db, course)
    third = (await progress(client, headers))[THIRD]
    assert (third["questions_total"], third["questions_correct"]) == (3, 1)


async def test_a_removed_lesson_is_retired(
    client: httpx.AsyncClient, db: Database, tree: Path, synced: None
) -> None:
    # The lesson before it links to it, as to the next lesson of the course.
    assert f'href="/lessons/{THIRD}"' in (await client.get(f"/lessons/{SECOND}")).text
    shutil.rmtree(tree / THIRD_LESSON)
    tracks_path = tree / "tracks.yaml"
    data = yaml.safe_load(tracks_path.read_text())
    data["tracks"].pop()
    tracks_path.write_text(yaml.safe_dump(data, sort_keys=False))
    await sync(db, load_catalog(tree))

    tracks = (await client.get("/api/tracks")).json()
    assert [t["slug"] for t in tracks] == list(TRACKS[:2])
    assert (await client.get(f"/api/lessons/{THIRD}")).status_code == 404
    async with db.sessionmaker() as session:
        assert (await session.get_one(Lesson, THIRD)).retired is True
        assert (await session.get_one(Exercise, THIRD_EXERCISE_ID)).retired
    headers, _ = await make_student(db)
    assert THIRD not in await progress(client, headers)
    # The lesson before it no longer links to it.
    page = await client.get(f"/lessons/{SECOND}")
    assert f'href="/lessons/{THIRD}"' not in page.text


async def test_broken_content_at_start_leaves_the_loaded_content(
    client: httpx.AsyncClient,
    db: Database,
    tree: Path,
    synced: None,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    edit_questions(tree, lambda qs: qs[0].update(prompt="Changed", correct=[9]))
    before = await snapshot(db)
    settings = root.test_settings(tmp_path, content_dir=tree)
    with caplog.at_level(logging.ERROR, logger="app"):
        await load_content(settings, db)
    assert await snapshot(db) == before
    assert f"lessons/{THIRD}/questions.yaml" in caplog.text
    assert "correct" in caplog.text
    lesson = (await client.get(f"/api/lessons/{THIRD}")).json()
    assert lesson["questions"][0]["prompt_html"] != "Changed"


async def test_content_at_start_is_loaded_when_it_is_valid(
    db: Database, tree: Path, tmp_path: Path
) -> None:
    """The counterpart of the test above: the same call does load good content."""
    edit_questions(tree, lambda qs: qs[0].update(prompt="Changed"))
    await load_content(root.test_settings(tmp_path, content_dir=tree), db)
    async with db.sessionmaker() as session:
        assert (await session.get_one(Question, MC)).prompt_html == "Changed"


async def test_a_missing_content_folder_at_start_leaves_the_loaded_content(
    db: Database, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    before = await snapshot(db)
    with caplog.at_level(logging.ERROR, logger="app"):
        await load_content(root.test_settings(tmp_path, content_dir=tmp_path / "nowhere"), db)
    assert await snapshot(db) == before
    assert "tracks.yaml" in caplog.text
