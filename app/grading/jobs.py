"""Translation between our rows and the grader's public contract (data only)."""

from __future__ import annotations

from typing import Any

from app.models import Exercise, RunVerdict, Submission, SubmissionMode, SubmissionStatus, Verdict
from grader import Comparison, ComparisonError, Job, Limits, Result, Run, Variant, compare


def job_for(submission: Submission, exercise: Exercise) -> Job:
    return Job(
        id=str(submission.id),
        code=submission.code,
        expected_output=exercise.expected_output,
        comparison=Comparison.model_validate(exercise.comparison),
        devices=list(submission.devices),
        limits=Limits.model_validate(exercise.limits),
        setup=exercise.setup or None,
        # A try-out is never compared: its job carries no hidden check to leak or to run.
        variants=[]
        if submission.mode == SubmissionMode.RUN
        else [Variant.model_validate(v) for v in exercise.variants or []],
    )


def checked_try_out(run: dict[str, Any], exercise: Exercise) -> dict[str, Any]:
    """A try-out's run with `output_matches`: whether its output is the exercise's expected
    output, compared as grading compares it. None when it did not run to a clean end (or
    the expected output cannot be compared): nothing was checked then. The try-out stays
    ungraded; this only keeps its page from calling a wrong output "passed"."""
    matches: bool | None = None
    if run.get("verdict") == RunVerdict.PASSED:
        comparison = Comparison.model_validate(exercise.comparison)
        try:
            matches, _ = compare(
                exercise.expected_output, run.get("stdout") or "", comparison, run["device"]
            )
        except ComparisonError:
            matches = None
    return {**run, "output_matches": matches}


def summarize(job_id: str, runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Status, verdict and detail of a finished set of runs, by the grader's own rules."""
    result = Result(job_id=job_id, runs=[Run.model_validate(run) for run in runs])
    # As members, like the rows they are written into (set_committed_value skips the column).
    return {
        "status": SubmissionStatus(result.status),
        "verdict": Verdict(result.verdict) if result.verdict else None,
        "detail": result.detail,
    }


def hidden_checks(runs: list[dict[str, Any]]) -> dict[str, Any] | None:
    """{"passed", "total", "failed": [variant names]} from the stored runs: a variant passed
    if it passed on every device it ran on. None when no hidden check ran."""
    passed: dict[str, bool] = {}
    for run in runs:
        for hidden in run.get("hidden_runs") or []:
            name = hidden.get("variant") or ""
            passed[name] = passed.get(name, True) and hidden.get("verdict") == RunVerdict.PASSED
    if not passed:
        return None
    failed = [name for name, ok in passed.items() if not ok]
    return {"passed": len(passed) - len(failed), "total": len(passed), "failed": failed}
