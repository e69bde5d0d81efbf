"""Broken content trees: `load_catalog` reports every problem with its file and field, and
`python -m app content check` prints them and exits 1. Each test breaks a small course of its
own (tests/app/content/course.py), never the real one."""

from __future__ import annotations

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
from tests.app.content.course import (
    CHOICE_ID,
    FIRST,
    FIRST_EXERCISE_ID,
    FIRST_LESSON,
    LEVELS,
    SECOND,
    THIRD,
    THIRD_EXERCISE,
    THIRD_EXERCISE_ID,
    THIRD_LESSON,
    TRACKS,
    write_course,
)

# Questions 0, 1, 2 of the third lesson: a single choice, a fill-in, a matching.
THIRD_QUESTIONS = THIRD_LESSON / "questions.yaml"
SECOND_LESSON = Path("lessons") / SECOND


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A valid course of the test's own, to break."""
    return write_course(tmp_path)


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


def test_the_course_of_these_tests_is_valid(tree: Path) -> None:
    catalog = load_catalog(tree)
    assert [t.level for t in catalog.tracks] == list(LEVELS)
    assert {lesson.slug for lesson in catalog.lessons} == {FIRST, SECOND, THIRD}


def test_bad_yaml(tree: Path) -> None:
    (tree / THIRD_LESSON / "lesson.yaml").write_text(f"slug: {THIRD}\ntitle: [unclosed\n")
    problem = find(problems(tree), THIRD_LESSON / "lesson.yaml", "line", "not valid YAML")
    assert problem.field.startswith("line ")


def test_bad_yaml_in_tracks_is_reported_too(tree: Path) -> None:
    (tree / "tracks.yaml").write_text("tracks:\n  - slug: a\n   title: b\n")
    find(problems(tree), "tracks.yaml", "line", "not valid YAML")


def test_missing_field(tree: Path) -> None:
    edit_yaml(tree / FIRST_LESSON / "lesson.yaml", lambda d: d.pop("summary"))
    find(problems(tree), FIRST_LESSON / "lesson.yaml", "summary", "Field required")


def test_unknown_extra_field(tree: Path) -> None:
    def misspell(data: dict[str, Any]) -> None:
        question = data["questions"][1]
        question["explantion"] = question.pop("explanation")

    edit_yaml(tree / THIRD_QUESTIONS, misspell)
    found = problems(tree)
    find(found, THIRD_QUESTIONS, "questions.1.fill_in.explantion", "Extra inputs")
    find(found, THIRD_QUESTIONS, "questions.1.fill_in.explanation", "Field required")


def test_unknown_field_in_exercise_yaml(tree: Path) -> None:
    edit_yaml(tree / THIRD_EXERCISE / "exercise.yaml", lambda d: d.update(timeout=3))
    find(problems(tree), THIRD_EXERCISE / "exercise.yaml", "timeout", "Extra inputs")


def test_wrong_kind(tree: Path) -> None:
    edit_yaml(tree / THIRD_QUESTIONS, lambda d: d["questions"][0].update(kind="essay"))
    problem = find(problems(tree), THIRD_QUESTIONS, "questions.0", "'essay'")
    assert "multiple_choice" in problem.message


def test_wrong_level(tree: Path) -> None:
    edit_yaml(tree / "tracks.yaml", lambda d: d["tracks"][0].update(level="expert"))
    find(problems(tree), "tracks.yaml", "tracks.0.level", "beginner")


@pytest.mark.parametrize("correct", [[4], [-1], [3, 3]])
def test_multiple_choice_correct_index_out_of_range(tree: Path, correct: list[int]) -> None:
    edit_yaml(tree / THIRD_QUESTIONS, lambda d: d["questions"][0].update(correct=correct))
    problem = find(problems(tree), THIRD_QUESTIONS, "questions.0", "correct")
    assert problem.field.startswith("questions.0")


def test_single_choice_with_two_correct_options(tree: Path) -> None:
    edit_yaml(tree / THIRD_QUESTIONS, lambda d: d["questions"][0].update(correct=[0, 3]))
    find(problems(tree), THIRD_QUESTIONS, "questions.0", "exactly one correct option")


def test_fill_in_blank_count_mismatch(tree: Path) -> None:
    edit_yaml(
        tree / THIRD_QUESTIONS,
        lambda d: d["questions"][1].update(template="x = x.____(____)"),
    )
    find(problems(tree), THIRD_QUESTIONS, "questions.1", "template has 2 blank(s)")


def test_fill_in_regex_that_does_not_compile(tree: Path) -> None:
    def break_regex(data: dict[str, Any]) -> None:
        data["questions"][1]["blanks"][0] = {"accepted": ["to("], "regex": True}

    edit_yaml(tree / THIRD_QUESTIONS, break_regex)
    find(problems(tree), THIRD_QUESTIONS, "questions.1", "not a regex")


def test_matching_with_a_repeated_right_item(tree: Path) -> None:
    def repeat(data: dict[str, Any]) -> None:
        pairs = data["questions"][2]["pairs"]
        pairs[0]["right"] = pairs[1]["right"]

    edit_yaml(tree / THIRD_QUESTIONS, repeat)
    find(problems(tree), THIRD_QUESTIONS, "questions.2", "distinct")


def test_matching_written_in_the_order_it_would_be_shown(tree: Path) -> None:
    """Otherwise each row's answer would sit beside it on the page."""
    path = tree / THIRD_QUESTIONS
    data = yaml.safe_load(path.read_text())
    question = data["questions"][2]
    shown = build_question(Matching.model_validate(question)).public["right"]
    order = [item["text"] for item in shown]
    question["pairs"].sort(key=lambda pair: order.index(pair["right"]))
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    find(problems(tree), THIRD_QUESTIONS, "questions.2.pairs", "order written")


def test_duplicate_question_id_across_lessons(tree: Path) -> None:
    edit_yaml(
        tree / FIRST_LESSON / "questions.yaml", lambda d: d["questions"][0].update(id=CHOICE_ID)
    )
    problem = find(problems(tree), THIRD_QUESTIONS, "id", f"'{CHOICE_ID}'")
    assert f"already used in lessons/{FIRST}" in problem.message


def test_question_id_shared_with_an_exercise(tree: Path) -> None:
    edit_yaml(tree / THIRD_QUESTIONS, lambda d: d["questions"][0].update(id=FIRST_EXERCISE_ID))
    find(problems(tree), THIRD_QUESTIONS, "id", "already used")


def test_exercise_id_not_matching_its_folder(tree: Path) -> None:
    edit_yaml(tree / THIRD_EXERCISE / "exercise.yaml", lambda d: d.update(id="something-else"))
    problem = find(problems(tree), THIRD_EXERCISE / "exercise.yaml", "id", "folder name")
    assert THIRD_EXERCISE_ID in problem.message


def test_lesson_slug_not_matching_its_folder(tree: Path) -> None:
    edit_yaml(tree / FIRST_LESSON / "lesson.yaml", lambda d: d.update(slug="first-stepz"))
    find(problems(tree), FIRST_LESSON / "lesson.yaml", "slug", "folder name")


@pytest.mark.parametrize("name", ["expected.txt", "starter.py", "solution.py", "exercise.yaml"])
def test_missing_exercise_file(tree: Path, name: str) -> None:
    (tree / THIRD_EXERCISE / name).unlink()
    find(problems(tree), THIRD_EXERCISE / name, "", "file is missing")


def test_missing_lesson_body(tree: Path) -> None:
    (tree / SECOND_LESSON / "body.md").unlink()
    find(problems(tree), SECOND_LESSON / "body.md", "", "file is missing")


def test_file_that_is_not_utf8(tree: Path) -> None:
    (tree / THIRD_LESSON / "body.md").write_bytes(b"caf\xe9\n")
    find(problems(tree), THIRD_LESSON / "body.md", "", "not UTF-8")


def test_lesson_not_in_any_track(tree: Path) -> None:
    edit_yaml(tree / "tracks.yaml", lambda d: d["tracks"].pop())  # the third lesson's track
    find(problems(tree), THIRD_LESSON, "", "in no track")


def test_lesson_in_two_tracks(tree: Path) -> None:
    edit_yaml(tree / "tracks.yaml", lambda d: d["tracks"][0]["lessons"].append(THIRD))
    find(problems(tree), "tracks.yaml", "tracks.2.lessons.0", f"already in {TRACKS[0]}")


def test_track_listing_a_missing_lesson(tree: Path) -> None:
    edit_yaml(tree / "tracks.yaml", lambda d: d["tracks"][1]["lessons"].append("ghost-lesson"))
    find(problems(tree), "tracks.yaml", "tracks.1.lessons.1", "no folder lessons/ghost-lesson")


def test_unknown_prerequisite(tree: Path) -> None:
    edit_yaml(
        tree / THIRD_LESSON / "lesson.yaml", lambda d: d.update(prerequisites=["no-such-lesson"])
    )
    find(
        problems(tree),
        THIRD_LESSON / "lesson.yaml",
        "prerequisites",
        "unknown lesson 'no-such-lesson'",
    )


def test_a_lesson_cannot_require_itself(tree: Path) -> None:
    edit_yaml(tree / THIRD_LESSON / "lesson.yaml", lambda d: d.update(prerequisites=[THIRD]))
    find(problems(tree), THIRD_LESSON / "lesson.yaml", "prerequisites", "cannot require itself")


def test_prerequisites_are_checked_even_when_another_file_of_the_lesson_is_broken(
    tree: Path,
) -> None:
    (tree / THIRD_EXERCISE / "expected.txt").unlink()
    edit_yaml(tree / THIRD_LESSON / "lesson.yaml", lambda d: d.update(prerequisites=["nope"]))
    found = problems(tree)
    find(found, THIRD_EXERCISE / "expected.txt", "", "file is missing")
    find(found, THIRD_LESSON / "lesson.yaml", "prerequisites", "unknown lesson 'nope'")


def test_a_broken_lesson_is_not_reported_as_unknown_by_those_that_require_it(tree: Path) -> None:
    (tree / FIRST_LESSON / "body.md").unlink()  # the second lesson requires the first
    found = problems(tree)
    find(found, FIRST_LESSON / "body.md", "", "file is missing")
    assert [str(p) for p in found] == [f"exercises/{FIRST_LESSON}/body.md: file is missing"]


@pytest.mark.parametrize("name", ["solution.py", "starter.py"])
def test_python_with_a_syntax_error(tree: Path, name: str) -> None:
    path = tree / THIRD_EXERCISE / name
    path.write_text(path.read_text() + "\ndef broken(:\n")
    problem = find(problems(tree), THIRD_EXERCISE / name, "line", "not valid Python")
    assert problem.field == f"line {len(path.read_text().splitlines())}"


def test_every_problem_is_reported_at_once(tree: Path) -> None:
    (tree / THIRD_EXERCISE / "expected.txt").unlink()
    edit_yaml(tree / FIRST_LESSON / "lesson.yaml", lambda d: d.pop("title"))
    edit_yaml(
        tree / SECOND_LESSON / "questions.yaml", lambda d: d["questions"][0].update(correct=[9])
    )
    found = problems(tree)
    find(found, THIRD_EXERCISE / "expected.txt", "", "file is missing")
    find(found, FIRST_LESSON / "lesson.yaml", "title", "Field required")
    find(found, SECOND_LESSON / "questions.yaml", "questions.0", "correct")


def test_missing_tracks_file(tree: Path) -> None:
    (tree / "tracks.yaml").unlink()
    find(problems(tree), "tracks.yaml", "", "file is missing")


def test_empty_tracks_file(tree: Path) -> None:
    (tree / "tracks.yaml").write_text("")
    find(problems(tree), "tracks.yaml", "tracks", "Field required")


# The command line ----------------------------------------------------------------------


def test_content_check_prints_every_problem_and_exits_1(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tree / THIRD_EXERCISE / "expected.txt").unlink()
    edit_yaml(tree / THIRD_LESSON / "lesson.yaml", lambda d: d.update(prerequisites=["nope"]))
    (tree / FIRST_LESSON / "questions.yaml").write_text("questions: [\n")
    assert main(["content", "check", "--path", str(tree)]) == 1
    out, err = capsys.readouterr()
    assert "content OK" not in out
    lines = err.splitlines()
    assert lines[0] == f"3 problem(s) in {tree}:"
    assert any(
        f"exercises/{THIRD_EXERCISE}/expected.txt: file is missing" in line for line in lines
    )
    assert any(
        f"exercises/{THIRD_LESSON}/lesson.yaml: prerequisites: unknown lesson 'nope'" in line
        for line in lines
    )
    assert any(
        f"exercises/{FIRST_LESSON}/questions.yaml: line" in line and "not valid YAML" in line
        for line in lines
    )
    assert len(lines) == 4


def test_content_check_passes_on_the_real_content(capsys: pytest.CaptureFixture[str]) -> None:
    real = REPO_ROOT / "exercises"
    catalog = load_catalog(real)
    assert main(["content", "check", "--path", str(real)]) == 0
    out, err = capsys.readouterr()
    assert out.startswith(
        f"content OK: {len(catalog.tracks)} tracks, {len(catalog.lessons)} lessons,"
    )
    assert err == ""


def test_content_check_passes_on_the_course_of_these_tests(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["content", "check", "--path", str(tree)]) == 0
    assert capsys.readouterr().out.startswith("content OK: 3 tracks, 3 lessons,")
