"""Translation between our rows and the grader's public contract (data only)."""

from __future__ import annotations

from typing import Any

from app.models import Exercise, Submission
from grader import Comparison, Job, Limits, Result, Run


def job_for(submission: Submission, exercise: Exercise) -> Job:
    return Job(
        id=str(submission.id),
        code=submission.code,
        expected_output=exercise.expected_output,
        comparison=Comparison.model_validate(exercise.comparison),
        devices=list(submission.devices),
        limits=Limits.model_validate(exercise.limits),
    )


def summarize(job_id: str, runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Status, verdict and detail of a finished set of runs, by the grader's own rules."""
    result = Result(job_id=job_id, runs=[Run.model_validate(run) for run in runs])
    return {"status": result.status, "verdict": result.verdict, "detail": result.detail}
