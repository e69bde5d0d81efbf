"""A small course of its own for the content-format tests, written into a temporary folder:
three tracks of one lesson each, a question of every kind, two exercises, a prerequisite
chain. The tests break a copy of it on purpose, so the real course under exercises/ can
change freely."""

from __future__ import annotations

from pathlib import Path

# The lessons, one per track, each requiring the one before.
FIRST = "first-steps"
SECOND = "second-steps"
THIRD = "third-steps"
TRACKS = ("start", "middle", "end")
LEVELS = ("beginner", "intermediate", "advanced")

# Relative to the course folder, as the tests name files.
FIRST_LESSON = Path("lessons") / FIRST
SECOND_LESSON = Path("lessons") / SECOND
THIRD_LESSON = Path("lessons") / THIRD
FIRST_EXERCISE_ID = f"{FIRST}-print"
THIRD_EXERCISE_ID = f"{THIRD}-double"
THIRD_EXERCISE = THIRD_LESSON / "exercises" / THIRD_EXERCISE_ID

# The third lesson's questions, in this order: a single choice, a fill-in, a matching.
CHOICE_ID = f"{THIRD}-choice"
FILL_IN_ID = f"{THIRD}-fill-in"
MATCHING_ID = f"{THIRD}-matching"
QUESTION_IDS = (CHOICE_ID, FILL_IN_ID, MATCHING_ID)

TRACKS_YAML = f"""\
tracks:
  - slug: {TRACKS[0]}
    title: Start
    level: {LEVELS[0]}
    lessons: [{FIRST}]
  - slug: {TRACKS[1]}
    title: Middle
    level: {LEVELS[1]}
    lessons: [{SECOND}]
  - slug: {TRACKS[2]}
    title: End
    level: {LEVELS[2]}
    lessons: [{THIRD}]
"""


def _lesson_yaml(slug: str, level: str, prerequisites: list[str]) -> str:
    return (
        f"slug: {slug}\ntitle: Lesson {slug}\nlevel: {level}\nsummary: What {slug} teaches.\n"
        f"prerequisites: [{', '.join(prerequisites)}]\n"
    )


def _choice(question_id: str) -> str:
    return f"""\
  - id: {question_id}
    kind: multiple_choice
    prompt: Which number is even?
    options: ["1", "3", "5", "8"]
    correct: [3]
    explanation: Eight is two fours.
"""


THIRD_QUESTIONS = (
    "questions:\n"
    + _choice(CHOICE_ID)
    + f"""\
  - id: {FILL_IN_ID}
    kind: fill_in
    prompt: Complete the line.
    template: "x = x.____(device)"
    blanks:
      - accepted: ["to"]
    explanation: "`.to` returns a copy on the device."
  - id: {MATCHING_ID}
    kind: matching
    prompt: Match each word with its opposite.
    pairs:
      - left: up
        right: down
      - left: left
        right: right
      - left: hot
        right: cold
      - left: early
        right: late
    explanation: Opposites.
"""
)

EXERCISE_YAML = """\
id: {id}
title: Exercise {id}
prompt: Print what the expected output says.
"""


def _exercise(folder: Path, exercise_id: str, solution: str, expected: str) -> None:
    folder.mkdir(parents=True)
    (folder / "exercise.yaml").write_text(EXERCISE_YAML.format(id=exercise_id))
    (folder / "starter.py").write_text("# Your code here\nprint(0)\n")
    (folder / "solution.py").write_text(solution)
    (folder / "expected.txt").write_text(expected + "\n")


def write_course(root: Path) -> Path:
    """The course under `root/exercises`; returns that folder."""
    tree = root / "exercises"
    (tree / "lessons").mkdir(parents=True)
    (tree / "tracks.yaml").write_text(TRACKS_YAML)
    previous: list[str] = []
    for slug, level in zip((FIRST, SECOND, THIRD), LEVELS, strict=True):
        lesson = tree / "lessons" / slug
        lesson.mkdir()
        (lesson / "lesson.yaml").write_text(_lesson_yaml(slug, level, previous))
        (lesson / "body.md").write_text(f"## {slug}\n\nWhat there is to know.\n")
        previous = [slug]
    (tree / FIRST_LESSON / "questions.yaml").write_text("questions:\n" + _choice(f"{FIRST}-q"))
    (tree / SECOND_LESSON / "questions.yaml").write_text("questions:\n" + _choice(f"{SECOND}-q"))
    (tree / THIRD_LESSON / "questions.yaml").write_text(THIRD_QUESTIONS)
    _exercise(
        tree / FIRST_LESSON / "exercises" / FIRST_EXERCISE_ID, FIRST_EXERCISE_ID, "print(1)\n", "1"
    )
    _exercise(tree / THIRD_EXERCISE, THIRD_EXERCISE_ID, "print(2 * 21)\n", "42")
    return tree
