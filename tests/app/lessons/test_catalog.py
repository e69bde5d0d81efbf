"""The catalog API: tracks in course order, lessons with exercises and questions, and never
anything that would give an answer away."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from sqlalchemy import select

from app.config import REPO_ROOT
from app.db import Database
from app.models import Exercise, Question
from app.quizzes.kinds import KINDS

CONTENT = REPO_ROOT / "exercises"
LESSONS = ["tensor-basics", "tensors-on-the-gpu", "gpu-support"]
SECRET_KEYS = {
    "correct",
    "accepted",
    "pairs",
    "explanation",
    "explanation_html",
    "solution",
    "solution_code",
    "key",
    "answer",
    "answers",
    "correct_answer",
    "case_sensitive",
    "regex",
}
QUESTION_KEYS = {
    "multiple_choice": {"id", "kind", "prompt_html", "options", "multiple"},
    "fill_in": {"id", "kind", "prompt_html", "template", "blanks"},
    "matching": {"id", "kind", "prompt_html", "left", "right"},
    "ordering": {"id", "kind", "prompt_html", "lines", "indent"},
    "predict_output": {"id", "kind", "prompt_html", "code"},
}


def _yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _keys(value: Any) -> set[str]:
    """Every object key anywhere in a JSON document."""
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


async def test_tracks_in_course_order_with_their_lessons(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/tracks")
    assert response.status_code == 200
    tracks = response.json()
    authored = _yaml(CONTENT / "tracks.yaml")["tracks"]
    assert [t["slug"] for t in tracks] == [t["slug"] for t in authored]
    assert [t["level"] for t in tracks] == ["beginner", "intermediate", "advanced"]
    for track, written in zip(tracks, authored, strict=True):
        assert set(track) == {"slug", "title", "level", "lessons"}
        assert track["title"] == written["title"]
        assert [lesson["slug"] for lesson in track["lessons"]] == written["lessons"]
        for lesson in track["lessons"]:
            assert set(lesson) == {"slug", "title"}
            assert (
                lesson["title"]
                == _yaml(CONTENT / "lessons" / lesson["slug"] / "lesson.yaml")["title"]
            )
    every = sorted(path.parent.name for path in (CONTENT / "lessons").glob("*/lesson.yaml"))
    assert sorted(lesson["slug"] for t in tracks for lesson in t["lessons"]) == every


@pytest.mark.parametrize("slug", LESSONS)
async def test_lesson_shape_matches_the_content_files(client: httpx.AsyncClient, slug: Any) -> None:
    response = await client.get(f"/api/lessons/{slug}")
    assert response.status_code == 200
    lesson = response.json()
    folder = CONTENT / "lessons" / slug
    spec = _yaml(folder / "lesson.yaml")
    tracks = _yaml(CONTENT / "tracks.yaml")["tracks"]

    assert set(lesson) == {
        "slug",
        "title",
        "level",
        "track",
        "summary",
        "prerequisites",
        "body_html",
        "exercises",
        "questions",
    }
    assert lesson["slug"] == slug
    assert lesson["title"] == spec["title"]
    assert lesson["level"] == spec["level"]
    assert lesson["summary"] == spec["summary"].strip()
    assert lesson["prerequisites"] == spec.get("prerequisites", [])
    assert lesson["track"] == next(t["slug"] for t in tracks if slug in t["lessons"])
    assert lesson["body_html"].startswith("<")
    assert "<script" not in lesson["body_html"]

    exercise_dirs = sorted(p for p in (folder / "exercises").iterdir() if p.is_dir())
    assert [e["id"] for e in lesson["exercises"]] == [p.name for p in exercise_dirs]
    for exercise, path in zip(lesson["exercises"], exercise_dirs, strict=True):
        assert set(exercise) == {
            "id",
            "title",
            "prompt_html",
            "starter_code",
            "expected_output",
            "devices",
            "setup",  # the visible example's; never a hidden variant's
            "hints",  # how many; their texts only through the hints endpoint, once opened
            "hints_after",
        }
        written = _yaml(path / "exercise.yaml")
        assert exercise["title"] == written["title"]
        assert exercise["hints"] == len(written.get("hints", []))
        assert exercise["hints_after"] == written.get("hints_after", 2)
        assert exercise["setup"] == written.get("setup", "").strip()
        assert exercise["devices"] == written.get("devices", ["cpu"])
        assert exercise["starter_code"] == (path / "starter.py").read_text(encoding="utf-8")
        assert exercise["expected_output"] == (path / "expected.txt").read_text(
            encoding="utf-8"
        ).rstrip("\n")
        assert exercise["prompt_html"].startswith("<")

    written_questions = _yaml(folder / "questions.yaml")["questions"]
    assert [q["id"] for q in lesson["questions"]] == [q["id"] for q in written_questions]
    for question, written in zip(lesson["questions"], written_questions, strict=True):
        assert question["kind"] == written["kind"]
        assert set(question) == QUESTION_KEYS[question["kind"]]
        assert question["prompt_html"]
        if question["kind"] == "multiple_choice":
            assert question["options"] == written["options"]
            assert question["multiple"] is written.get("multiple", False)
        elif question["kind"] == "fill_in":
            assert question["template"] == written["template"]
            assert question["blanks"] == len(written["blanks"]) == written["template"].count("____")
        elif question["kind"] == "matching":
            assert [item["text"] for item in question["left"]] == [
                p["left"] for p in written["pairs"]
            ]
            assert sorted(item["text"] for item in question["right"]) == sorted(
                p["right"] for p in written["pairs"]
            )
            for item in question["left"] + question["right"]:
                assert set(item) == {"id", "text"}
        elif question["kind"] == "ordering":
            assert sorted(line["code"] for line in question["lines"]) == sorted(
                line["code"] for line in written["lines"]
            )
            assert question["indent"] is written.get("indent", False)
        else:
            assert question["code"] == written["code"].rstrip("\n")


async def test_the_built_in_content_has_every_question_kind(client: httpx.AsyncClient) -> None:
    kinds = set()
    for slug in LESSONS:
        kinds |= {q["kind"] for q in (await client.get(f"/api/lessons/{slug}")).json()["questions"]}
    assert kinds == set(KINDS)


async def test_gpu_support_exercise_expected_output_and_devices(client: httpx.AsyncClient) -> None:
    lesson = (await client.get("/api/lessons/gpu-support")).json()
    [exercise] = lesson["exercises"]
    assert exercise["id"] == "gpu-support-device-independent"
    # The last line names the device the product was computed on: a program that never
    # uses the device fails on a GPU.
    assert exercise["expected_output"] == "[[3.0, 3.0, 3.0], [3.0, 3.0, 3.0]]\n{device_type}"
    assert {"cpu", "cuda"} <= set(exercise["devices"])
    assert lesson["track"] == "advanced"
    assert lesson["level"] == "advanced"
    assert lesson["prerequisites"] == ["saving-and-loading"]


@pytest.mark.parametrize(
    "slug", ["no-such-lesson", "GPU-SUPPORT", "gpu-support-device-independent", "tensor%20basics"]
)
async def test_unknown_lesson_is_404_with_a_json_detail(
    client: httpx.AsyncClient, slug: str
) -> None:
    response = await client.get(f"/api/lessons/{slug}")
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("application/json")
    assert isinstance(response.json()["detail"], str)


@pytest.mark.parametrize("slug", LESSONS)
async def test_the_catalog_never_carries_answers(
    client: httpx.AsyncClient, db: Database, slug: Any
) -> None:
    response = await client.get(f"/api/lessons/{slug}")
    assert response.status_code == 200
    assert not _keys(response.json()) & SECRET_KEYS
    async with db.sessionmaker() as session:
        questions = (
            await session.scalars(select(Question).where(Question.lesson_slug == slug))
        ).all()
        exercises = (
            await session.scalars(select(Exercise).where(Exercise.lesson_slug == slug))
        ).all()
    assert questions and exercises
    text = response.text
    for question in questions:
        assert question.explanation_html not in text
        # The explanations are long enough that a fragment of one is telling too.
        assert question.explanation_html[:60] not in text
    for exercise in exercises:
        assert exercise.solution_code.strip() not in text


@pytest.mark.parametrize("path", ["/api/tracks", *(f"/api/lessons/{s}" for s in LESSONS)])
async def test_no_catalog_answer_names_an_answer_key(client: httpx.AsyncClient, path: Any) -> None:
    response = await client.get(path)
    assert not _keys(response.json()) & SECRET_KEYS


async def test_matching_sides_cannot_be_paired_by_order_or_by_id(client: httpx.AsyncClient) -> None:
    lesson = (await client.get("/api/lessons/gpu-support")).json()
    [question] = [q for q in lesson["questions"] if q["kind"] == "matching"]
    written = next(
        q
        for q in _yaml(CONTENT / "lessons" / "gpu-support" / "questions.yaml")["questions"]
        if q["id"] == question["id"]
    )
    authored_right = [p["right"] for p in written["pairs"]]
    assert [item["text"] for item in question["left"]] == [p["left"] for p in written["pairs"]]
    assert [item["text"] for item in question["right"]] != authored_right

    left_ids = [item["id"] for item in question["left"]]
    right_ids = [item["id"] for item in question["right"]]
    assert len(set(left_ids)) == len(left_ids) and len(set(right_ids)) == len(right_ids)
    assert not set(left_ids) & set(right_ids)
    # No shared stem (l1234… / r1234…), no shared suffix, nothing to line up.
    stems = {i[1:] for i in left_ids}
    assert not stems & {i[1:] for i in right_ids}
    assert not {i[-4:] for i in left_ids} & {i[-4:] for i in right_ids}


async def test_matching_right_side_is_stable_between_visits(client: httpx.AsyncClient) -> None:
    first = (await client.get("/api/lessons/gpu-support")).json()
    second = (await client.get("/api/lessons/gpu-support")).json()
    assert first["questions"] == second["questions"]
