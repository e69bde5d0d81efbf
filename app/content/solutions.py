"""`content check --run`: every sample solution, graded in the sandbox on every device this
machine has, with its hidden variants; every starter must fail; every variant's committed
expected output must be what the solution prints now (`--write-variants` makes them). A
device the machine lacks is reported, not failed."""

from __future__ import annotations

import difflib
import itertools
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from app.config import Settings
from app.content import variants
from app.content.loader import Catalog, ExerciseData, LessonData, load_catalog
from app.models import RunVerdict
from app.quizzes.kinds import kind_of

if TYPE_CHECKING:
    from grader import Grader, Job, Run


def check_solutions(
    catalog: Catalog, settings: Settings, *, root: Path, write_variants: bool = False
) -> int:
    from grader import Grader, GraderConfig

    config = GraderConfig(workers=2, unsafe_dev_mode=settings.grader_unsafe_dev_mode)
    with Grader(config) as grader:
        if "cpu" in grader.problems:
            print(f"the grader cannot run code here: {grader.problems['cpu']}", file=sys.stderr)
            return 1
        print(f"grading sample solutions on: {', '.join(grader.devices)}")
        failures = 0
        if write_variants:
            failures += _write_variants(catalog, grader)
            catalog = load_catalog(root)  # ContentError: the caller reports its problems
        for lesson in catalog.lessons:
            for exercise in lesson.exercises:
                failures += _check_exercise(exercise, grader)
            failures += _check_questions(lesson, grader)
    if failures:
        print(f"{failures} check(s) failed", file=sys.stderr)
        return 1
    print("every sample solution passes")
    return 0


def _job(exercise: ExerciseData, code: str) -> Job:
    from grader import Comparison, Job, Limits, Variant

    return Job(
        id=exercise.id,
        code=code,
        expected_output=exercise.expected_output,
        comparison=Comparison.model_validate(exercise.comparison),
        devices=exercise.devices,
        limits=Limits.model_validate(exercise.limits),
        setup=exercise.setup or None,
        variants=[
            Variant(name=v.name, setup=v.setup, expected_output=v.expected_output or "")
            for v in exercise.variants
        ],
    )


def _check_exercise(exercise: ExerciseData, grader: Grader) -> int:
    # Each language's own solution (Turkish identifiers...) must print the same expected
    # output, and its own starter must not.
    codes = [("", exercise.solution_code, exercise.starter_code)] + [
        (f".{language}", words.get("solution_code"), words.get("starter_code"))
        for language, words in exercise.translations.items()
    ]
    failures = 0
    for suffix, solution, starter in codes:
        name = f"{exercise.id}{f' (solution{suffix}.py)' if suffix else ''}"
        if solution is not None:
            for run in grader.grade(_job(exercise, solution)).runs:
                failures += _report(f"{name} on {run.device}", run)
                for hidden in run.hidden_runs:
                    failures += _report(f"{name} [{hidden.variant}] on {run.device}", hidden)
        if starter is not None and grader.grade(_job(exercise, starter)).verdict == (
            RunVerdict.PASSED
        ):
            failures += 1
            print(f"  FAILED  {exercise.id}: starter{suffix}.py already passes")
    for variant in exercise.variants:
        where = f"{exercise.id} [{variant.name}]"
        made = _variant_output(exercise, variant.setup, grader, where)
        if made is None:
            failures += 1
        elif made != variant.expected_output:
            failures += 1
            print(f"  FAILED  {where}: {variants.FILE_NAME} is stale; {variants.MAKE_IT}")
            _print_lines(
                difflib.unified_diff(
                    (variant.expected_output or "").split("\n"),
                    made.split("\n"),
                    "committed",
                    "solution.py prints",
                    lineterm="",
                )
            )
    return failures


def _check_questions(lesson: LessonData, grader: Grader) -> int:
    """Code a question shows (in each language) must print what the question says it
    prints, on every device here, as its kind declares (`QuestionKind.output_checks`)."""
    from grader import Job

    failures = 0
    for question in lesson.questions:
        kind = kind_of(question.kind)
        versions = [("", question.public, question.key)] + [
            (f" [{language}]", words["public"], words["key"])
            for language, words in question.translations.items()
            if "public" in words and "key" in words
        ]
        checked: set[tuple[str, str]] = set()
        for tag, public, key in versions:
            for check in kind.output_checks_stored(public, key):
                if (check.code, check.expected) in checked:
                    continue  # a translation that kept the English code and output
                checked.add((check.code, check.expected))
                job = Job(
                    id=question.id,
                    code=check.code,
                    expected_output=check.expected,
                    comparison=check.comparison,
                    devices=grader.devices,
                )
                for run in grader.grade(job).runs:
                    where = f"{question.id}{tag} ({check.field}) on {run.device}"
                    failures += _report(where, run)
    return failures


def _write_variants(catalog: Catalog, grader: Grader) -> int:
    failures = 0
    for lesson in catalog.lessons:
        for exercise in lesson.exercises:
            if not exercise.variants:
                continue
            entries = {}
            for variant in exercise.variants:
                where = f"{exercise.id} [{variant.name}]"
                made = _variant_output(exercise, variant.setup, grader, where)
                if made is None:
                    failures += 1
                    break
                fingerprint = variants.fingerprint(exercise.solution_code, variant.setup)
                entries[variant.name] = (fingerprint, made)
            else:
                variants.write(exercise.source, entries)
                print(f"  wrote   {exercise.source / variants.FILE_NAME}")
    return failures


def _variant_output(exercise: ExerciseData, setup: str, grader: Grader, where: str) -> str | None:
    """What the solution prints on the CPU after `setup`, as a variant's expected output;
    None (reported) if it fails, or if printing the example's expected output would pass
    the variant, which would then catch nothing."""
    from grader import Limits

    run = grader.run(
        exercise.solution_code, "cpu", Limits.model_validate(exercise.limits), setup=setup
    )
    if run.verdict != RunVerdict.PASSED:
        print(f"  FAILED  {where} on cpu: solution.py ends in {run.verdict} {run.detail or ''}")
        _print_lines(run.stderr.splitlines())
        return None
    made = variants.expected_text(run.stdout, exercise.expected_output)
    if _example_passes(exercise, made):
        print(f"  FAILED  {where}: the example's own output passes it, so it catches nothing")
        return None
    return made


def _example_passes(exercise: ExerciseData, variant_expected: str) -> bool:
    """Would printing the visible expected output pass this variant?"""
    from grader import Comparison, ComparisonError, compare

    hard_coded = exercise.expected_output.replace("{device}", "cpu").replace("{device_type}", "cpu")
    comparison = Comparison.model_validate(exercise.comparison)
    try:
        return compare(variant_expected, hard_coded, comparison, "cpu")[0]
    except ComparisonError:
        return False  # a broken pattern: grading the solution reports it


def _report(where: str, run: Run) -> int:
    if run.verdict == RunVerdict.NOT_GRADED:
        print(f"  skipped {where}: {run.detail}")
        return 0
    if run.verdict == RunVerdict.PASSED:
        print(f"  passed  {where} ({run.duration_ms} ms)")
        return 0
    print(f"  FAILED  {where}: {run.verdict} {run.detail or ''}")
    _print_lines((run.diff or run.stderr).splitlines())
    return 1


def _print_lines(lines: Iterable[str]) -> None:
    for line in itertools.islice(lines, 40):
        print(f"          {line}")
