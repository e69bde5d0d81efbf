"""Broken content trees: `load_catalog` reports every problem with its file and field, and
`python -m app content check` prints them and exits 1."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.cli import main
from app.config import REPO_ROOT
from app.content import ContentError, Problem, load_catalog
from app.content.loader import build_question
from app.quizzes.kinds.matching import Matching

GPU = Path("lessons/gpu-support")
BASICS = Path("lessons/tensor-basics")
ON_GPU = Path("lessons/tensors-on-the-gpu")
GPU_EXERCISE = GPU / "exercises" / "gpu-support-device-independent"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A copy of the built-in content, to break."""
    root = tmp_path / "exercises"
    shutil.copytree(
        REPO_ROOT / "exercises", root, ignore=shutil.ignore_patterns(".*", "__pycache__")
    )
    return root


def edit_yaml(path: Path, change: Callable[[Any], object]) -> None:
    """Load, change in place (whatever `change` returns is ignored), write back."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


def problems(root: Path) -> list[Problem]:
    with pytest.raises(ContentError) as caught:
        load_catalog(root)
    assert caught.value.problems
    # The exception's text lists them all, one a line.
    assert str(caught.value) == "\n".join(str(p) for p in caught.value.problems)
    return caught.value.problems


def find(found: list[Problem], path: Path | str, field: str, message: str) -> Problem:
    """The problem naming this file (relative to the tree's parent) and field."""
    wanted = str(Path("exercises") / path)
    matches = [p for p in found if p.path == wanted and field in p.field and message in p.message]
    assert matches, f"no problem at {wanted} / {field!r} / {message!r} in:\n" + "\n".join(
        str(p) for p in found
    )
    return matches[0]


def test_the_built_in_content_is_valid(tree):
    catalog = load_catalog(tree)
    assert [t.level for t in catalog.tracks] == ["beginner", "intermediate", "advanced"]
    assert {lesson.slug for lesson in catalog.lessons} == {
        "tensor-basics",
        "tensors-on-the-gpu",
        "gpu-support",
    }


def test_bad_yaml(tree):
    (tree / GPU / "lesson.yaml").write_text("slug: gpu-support\ntitle: [unclosed\n")
    problem = find(problems(tree), GPU / "lesson.yaml", "line", "not valid YAML")
    assert problem.field.startswith("line ")


def test_bad_yaml_in_tracks_is_reported_too(tree):
    (tree / "tracks.yaml").write_text("tracks:\n  - slug: a\n   title: b\n")
    find(problems(tree), "tracks.yaml", "line", "not valid YAML")


def test_missing_field(tree):
    edit_yaml(tree / BASICS / "lesson.yaml", lambda d: d.pop("summary"))
    find(problems(tree), BASICS / "lesson.yaml", "summary", "Field required")


def test_unknown_extra_field(tree):
    def misspell(data: dict[str, Any]) -> None:
        question = data["questions"][1]
        question["explantion"] = question.pop("explanation")

    edit_yaml(tree / GPU / "questions.yaml", misspell)
    found = problems(tree)
    find(found, GPU / "questions.yaml", "questions.1.fill_in.explantion", "Extra inputs")
    find(found, GPU / "questions.yaml", "questions.1.fill_in.explanation", "Field required")


def test_unknown_field_in_exercise_yaml(tree):
    edit_yaml(tree / GPU_EXERCISE / "exercise.yaml", lambda d: d.update(timeout=3))
    find(problems(tree), GPU_EXERCISE / "exercise.yaml", "timeout", "Extra inputs")


def test_wrong_kind(tree):
    edit_yaml(tree / GPU / "questions.yaml", lambda d: d["questions"][0].update(kind="essay"))
    problem = find(problems(tree), GPU / "questions.yaml", "questions.0", "'essay'")
    assert "multiple_choice" in problem.message


def test_wrong_level(tree):
    edit_yaml(tree / "tracks.yaml", lambda d: d["tracks"][0].update(level="expert"))
    find(problems(tree), "tracks.yaml", "tracks.0.level", "beginner")


@pytest.mark.parametrize("correct", [[4], [-1], [3, 3]])
def test_multiple_choice_correct_index_out_of_range(tree, correct):
    edit_yaml(tree / GPU / "questions.yaml", lambda d: d["questions"][0].update(correct=correct))
    problem = find(problems(tree), GPU / "questions.yaml", "questions.0", "correct")
    assert problem.field.startswith("questions.0")


def test_single_choice_with_two_correct_options(tree):
    edit_yaml(tree / GPU / "questions.yaml", lambda d: d["questions"][0].update(correct=[0, 3]))
    find(problems(tree), GPU / "questions.yaml", "questions.0", "exactly one correct option")


def test_fill_in_blank_count_mismatch(tree):
    edit_yaml(
        tree / GPU / "questions.yaml",
        lambda d: d["questions"][1].update(template="x = x.____(____)"),
    )
    find(problems(tree), GPU / "questions.yaml", "questions.1", "template has 2 blank(s)")


def test_fill_in_regex_that_does_not_compile(tree):
    def break_regex(data: dict[str, Any]) -> None:
        data["questions"][1]["blanks"][0] = {"accepted": ["to("], "regex": True}

    edit_yaml(tree / GPU / "questions.yaml", break_regex)
    find(problems(tree), GPU / "questions.yaml", "questions.1", "not a regex")


def test_matching_with_a_repeated_right_item(tree):
    def repeat(data: dict[str, Any]) -> None:
        pairs = data["questions"][2]["pairs"]
        pairs[0]["right"] = pairs[1]["right"]

    edit_yaml(tree / GPU / "questions.yaml", repeat)
    find(problems(tree), GPU / "questions.yaml", "questions.2", "distinct")


def test_matching_written_in_the_order_it_would_be_shown(tree):
    """Otherwise each row's answer would sit beside it on the page."""
    path = tree / GPU / "questions.yaml"
    data = yaml.safe_load(path.read_text())
    question = data["questions"][2]
    shown = build_question(Matching.model_validate(question)).public["right"]
    order = [item["text"] for item in shown]
    question["pairs"].sort(key=lambda pair: order.index(pair["right"]))
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    find(problems(tree), GPU / "questions.yaml", "questions.2.pairs", "order written")


def test_duplicate_question_id_across_lessons(tree):
    edit_yaml(
        tree / BASICS / "questions.yaml",
        lambda d: d["questions"][0].update(id="gpu-support-same-device"),
    )
    problem = find(problems(tree), GPU / "questions.yaml", "id", "'gpu-support-same-device'")
    assert "already used in lessons/tensor-basics" in problem.message


def test_question_id_shared_with_an_exercise(tree):
    edit_yaml(
        tree / GPU / "questions.yaml",
        lambda d: d["questions"][0].update(id="tensor-basics-grid"),
    )
    find(problems(tree), GPU / "questions.yaml", "id", "already used")


def test_exercise_id_not_matching_its_folder(tree):
    edit_yaml(tree / GPU_EXERCISE / "exercise.yaml", lambda d: d.update(id="something-else"))
    problem = find(problems(tree), GPU_EXERCISE / "exercise.yaml", "id", "folder name")
    assert "gpu-support-device-independent" in problem.message


def test_lesson_slug_not_matching_its_folder(tree):
    edit_yaml(tree / BASICS / "lesson.yaml", lambda d: d.update(slug="tensor-basix"))
    find(problems(tree), BASICS / "lesson.yaml", "slug", "folder name")


@pytest.mark.parametrize("name", ["expected.txt", "starter.py", "solution.py", "exercise.yaml"])
def test_missing_exercise_file(tree, name):
    (tree / GPU_EXERCISE / name).unlink()
    find(problems(tree), GPU_EXERCISE / name, "", "file is missing")


def test_missing_lesson_body(tree):
    (tree / ON_GPU / "body.md").unlink()
    find(problems(tree), ON_GPU / "body.md", "", "file is missing")


def test_file_that_is_not_utf8(tree):
    (tree / GPU / "body.md").write_bytes(b"caf\xe9\n")
    find(problems(tree), GPU / "body.md", "", "not UTF-8")


def test_lesson_not_in_any_track(tree):
    edit_yaml(tree / "tracks.yaml", lambda d: d["tracks"].pop())  # the track of gpu-support
    find(problems(tree), GPU, "", "in no track")


def test_lesson_in_two_tracks(tree):
    edit_yaml(tree / "tracks.yaml", lambda d: d["tracks"][0]["lessons"].append("gpu-support"))
    find(problems(tree), "tracks.yaml", "tracks.2.lessons.0", "already in foundations")


def test_track_listing_a_missing_lesson(tree):
    edit_yaml(tree / "tracks.yaml", lambda d: d["tracks"][1]["lessons"].append("ghost-lesson"))
    find(problems(tree), "tracks.yaml", "tracks.1.lessons.1", "no folder lessons/ghost-lesson")


def test_unknown_prerequisite(tree):
    edit_yaml(tree / GPU / "lesson.yaml", lambda d: d.update(prerequisites=["no-such-lesson"]))
    find(problems(tree), GPU / "lesson.yaml", "prerequisites", "unknown lesson 'no-such-lesson'")


def test_a_lesson_cannot_require_itself(tree):
    edit_yaml(tree / GPU / "lesson.yaml", lambda d: d.update(prerequisites=["gpu-support"]))
    find(problems(tree), GPU / "lesson.yaml", "prerequisites", "cannot require itself")


def test_prerequisites_are_checked_even_when_another_file_of_the_lesson_is_broken(tree):
    (tree / GPU_EXERCISE / "expected.txt").unlink()
    edit_yaml(tree / GPU / "lesson.yaml", lambda d: d.update(prerequisites=["nope"]))
    found = problems(tree)
    find(found, GPU_EXERCISE / "expected.txt", "", "file is missing")
    find(found, GPU / "lesson.yaml", "prerequisites", "unknown lesson 'nope'")


def test_a_broken_lesson_is_not_reported_as_unknown_by_those_that_require_it(tree):
    (tree / BASICS / "body.md").unlink()
    found = problems(tree)
    find(found, BASICS / "body.md", "", "file is missing")
    assert [str(p) for p in found] == ["exercises/lessons/tensor-basics/body.md: file is missing"]


@pytest.mark.parametrize("name", ["solution.py", "starter.py"])
def test_python_with_a_syntax_error(tree, name):
    path = tree / GPU_EXERCISE / name
    path.write_text(path.read_text() + "\ndef broken(:\n")
    problem = find(problems(tree), GPU_EXERCISE / name, "line", "not valid Python")
    assert problem.field == f"line {len(path.read_text().splitlines())}"


def test_every_problem_is_reported_at_once(tree):
    (tree / GPU_EXERCISE / "expected.txt").unlink()
    edit_yaml(tree / BASICS / "lesson.yaml", lambda d: d.pop("title"))
    edit_yaml(tree / ON_GPU / "questions.yaml", lambda d: d["questions"][0].update(correct=[9]))
    found = problems(tree)
    find(found, GPU_EXERCISE / "expected.txt", "", "file is missing")
    find(found, BASICS / "lesson.yaml", "title", "Field required")
    find(found, ON_GPU / "questions.yaml", "questions.0", "correct")


def test_missing_tracks_file(tree):
    (tree / "tracks.yaml").unlink()
    find(problems(tree), "tracks.yaml", "", "file is missing")


def test_empty_tracks_file(tree):
    (tree / "tracks.yaml").write_text("")
    find(problems(tree), "tracks.yaml", "tracks", "Field required")


# The command line ----------------------------------------------------------------------


def test_content_check_prints_every_problem_and_exits_1(tree, capsys):
    (tree / GPU_EXERCISE / "expected.txt").unlink()
    edit_yaml(tree / GPU / "lesson.yaml", lambda d: d.update(prerequisites=["nope"]))
    (tree / BASICS / "questions.yaml").write_text("questions: [\n")
    assert main(["content", "check", "--path", str(tree)]) == 1
    out, err = capsys.readouterr()
    assert "content OK" not in out
    lines = err.splitlines()
    assert lines[0] == f"3 problem(s) in {tree}:"
    assert any(
        "exercises/lessons/gpu-support/exercises/gpu-support-device-independent/expected.txt: "
        "file is missing" in line
        for line in lines
    )
    assert any(
        "exercises/lessons/gpu-support/lesson.yaml: prerequisites: unknown lesson 'nope'" in line
        for line in lines
    )
    assert any(
        "exercises/lessons/tensor-basics/questions.yaml: line" in line and "not valid YAML" in line
        for line in lines
    )
    assert len(lines) == 4


def test_content_check_passes_on_the_real_content(capsys):
    assert main(["content", "check", "--path", str(REPO_ROOT / "exercises")]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("content OK: 3 tracks, 3 lessons,")
    assert err == ""


def test_content_check_passes_on_a_faithful_copy(tree, capsys):
    assert main(["content", "check", "--path", str(tree)]) == 0
    assert "content OK" in capsys.readouterr().out
