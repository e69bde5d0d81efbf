"""Translation between our rows and the grader's public contract (data only)."""

from __future__ import annotations

from typing import Any

from app.models import Exercise, Submission
from grader import Comparison, Job, Limits, Result

RUN_ONLY_EXPECTED = ""


def job_for(submission: Submission, exercise: Exercise) -> Job:
    devices = ["cpu"] if submission.mode == "run" else list(exercise.devices)
    return Job(
        id=str(submission.id),
        code=submission.code,
        expected_output=exercise.expected_output,
        comparison=Comparison.model_validate(exercise.comparison),
        devices=devices,
        limits=Limits.model_validate(exercise.limits),
    )


def outcome_of(result: Result) -> dict[str, Any]:
    """Keyword arguments for service.record_result."""
    return {
        "status": result.status,
        "verdict": result.verdict,
        "runs": [run.model_dump() for run in result.runs],
        "detail": result.detail,
    }
