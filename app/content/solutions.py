"""`content check --run`: every sample solution, graded in the sandbox on every device this
machine has. A device the machine lacks is reported, not failed."""

from __future__ import annotations

import sys

from app.config import Settings
from app.content.loader import Catalog


def check_solutions(catalog: Catalog, settings: Settings) -> int:
    from grader import Comparison, Grader, GraderConfig, Job, Limits

    config = GraderConfig(workers=2, unsafe_dev_mode=settings.grader_unsafe_dev_mode)
    failures = 0
    with Grader(config) as grader:
        if "cpu" in grader.problems:
            print(f"the grader cannot run code here: {grader.problems['cpu']}", file=sys.stderr)
            return 1
        print(f"grading sample solutions on: {', '.join(grader.devices)}")
        for lesson in catalog.lessons:
            for exercise in lesson.exercises:
                job = Job(
                    id=exercise.id,
                    code=exercise.solution_code,
                    expected_output=exercise.expected_output,
                    comparison=Comparison.model_validate(exercise.comparison),
                    devices=exercise.devices,
                    limits=Limits.model_validate(exercise.limits),
                )
                for run in grader.grade(job).runs:
                    where = f"{exercise.source.name} on {run.device}"
                    if run.verdict == "not_graded":
                        print(f"  skipped {where}: {run.detail}")
                    elif run.verdict == "passed":
                        print(f"  passed  {where} ({run.duration_ms} ms)")
                    else:
                        failures += 1
                        print(f"  FAILED  {where}: {run.verdict} {run.detail or ''}")
                        for line in (run.diff or run.stderr).splitlines()[:40]:
                            print(f"          {line}")
    if failures:
        print(f"{failures} sample solution run(s) failed", file=sys.stderr)
        return 1
    print("every sample solution passes")
    return 0
