"""A small course of its own for the hidden-variant tests: one exercise that sums `numbers`,
defined by its setup, with two hidden variants."""

from __future__ import annotations

from pathlib import Path

LESSON = "adding-up"
EXERCISE = "adding-up-sum"
SOLUTION = "print('total', sum(numbers))\n"
HARD_CODED = "print('total', 6)\n"  # the visible expected output, printed literally
STARTER = "# `numbers` is defined before your code runs\nprint('total', 0)\n"
EXPECTED = "total 6"
# What only the hidden checks know: none of it may ever reach a student.
VARIANT_NAMES = ("thousands", "minus-7000")
VARIANT_SETUPS = ("numbers = [1000, 2000, 3000, 4321]", "numbers = [-7000, 123]")
VARIANT_OUTPUTS = ("total 10321", "total -6877")

EXERCISE_YAML = f"""\
id: {EXERCISE}
title: Add the numbers
prompt: Print `total` and the sum of `numbers`, which is defined before your code runs.
setup: |
  numbers = [1, 2, 3]
variants:
  - name: {VARIANT_NAMES[0]}
    setup: |
      {VARIANT_SETUPS[0]}
  - name: {VARIANT_NAMES[1]}
    setup: |
      {VARIANT_SETUPS[1]}
"""


def write_course(root: Path) -> Path:
    """The course under `root/exercises`, without variants.expected.yaml; returns it."""
    tree = root / "exercises"
    lesson = tree / "lessons" / LESSON
    folder = lesson / "exercises" / EXERCISE
    folder.mkdir(parents=True)
    (tree / "tracks.yaml").write_text(
        f"tracks:\n  - slug: sums\n    title: Sums\n    level: beginner\n    lessons: [{LESSON}]\n"
    )
    (lesson / "lesson.yaml").write_text(
        f"slug: {LESSON}\ntitle: Adding up\nlevel: beginner\nsummary: Sums of lists.\n"
    )
    (lesson / "body.md").write_text("## Adding up\n\nPython's `sum` adds a list up.\n")
    (folder / "exercise.yaml").write_text(EXERCISE_YAML)
    (folder / "starter.py").write_text(STARTER)
    (folder / "solution.py").write_text(SOLUTION)
    (folder / "expected.txt").write_text(EXPECTED + "\n")
    return tree


def exercise_folder(tree: Path) -> Path:
    return tree / "lessons" / LESSON / "exercises" / EXERCISE
