from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Status = Literal["queued", "running", "done", "error"]
Verdict = Literal[
    "passed", "wrong_output", "runtime_error", "timeout", "memory_limit", "output_limit"
]


class SubmissionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    code: str


class RunOut(BaseModel):
    device: str
    verdict: str
    stdout: str
    stderr: str
    exit_code: int | None
    duration_ms: int
    diff: str
    hint: str | None = None
    detail: str | None = None


class SubmissionOut(BaseModel):
    id: int
    exercise_id: str
    status: Status
    verdict: Verdict | None
    runs: list[RunOut]
    created_at: datetime
    finished_at: datetime | None
    detail: str | None = None
    mode: Literal["grade", "run"] = "grade"
    position: int | None = Field(
        default=None, description="Place in the grading queue while queued (1 is next)."
    )
    code: str | None = None


class SolutionOut(BaseModel):
    solution_code: str
    reason: Literal["passed", "gave_up"]
