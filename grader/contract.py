"""The job/result contract between the app and the grader: plain pydantic models that travel as
JSON over a queue. The app relies on these names and fields; change them only together."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, computed_field

ComparisonMode = Literal["exact", "whitespace", "numeric", "patterns"]
RunVerdict = Literal[
    "passed",
    "wrong_output",
    "runtime_error",
    "timeout",
    "memory_limit",
    "output_limit",
    "not_graded",
    "error",
]
ResultStatus = Literal["done", "error"]


class Comparison(BaseModel):
    mode: ComparisonMode = "whitespace"
    rtol: float = Field(default=1e-5, ge=0)
    atol: float = Field(default=1e-8, ge=0)


class Limits(BaseModel):
    wall_time_s: float = Field(default=10.0, gt=0, le=600)
    cpu_time_s: float = Field(default=10.0, gt=0, le=600)
    memory_mb: int = Field(default=1024, gt=0)
    processes: int = Field(default=32, ge=1, le=4096)
    file_size_mb: int = Field(default=16, ge=1)
    open_files: int = Field(default=128, ge=8, le=65536)
    output_kb: int = Field(default=64, ge=1)


class Job(BaseModel):
    id: str
    code: str
    expected_output: str
    comparison: Comparison = Comparison()
    devices: list[str] = Field(default_factory=lambda: ["cpu"])
    limits: Limits = Limits()


class Run(BaseModel):
    device: str
    verdict: RunVerdict
    stdout: str
    stderr: str
    exit_code: int | None
    duration_ms: int
    diff: str = ""
    hint: str | None = None
    detail: str | None = None

    @classmethod
    def without_output(cls, device: str, verdict: RunVerdict, detail: str) -> Run:
        """A run that produced nothing: not graded on this host, or failed before it ran."""
        return cls(
            device=device,
            verdict=verdict,
            stdout="",
            stderr="",
            exit_code=None,
            duration_ms=0,
            detail=detail,
        )


class Result(BaseModel):
    job_id: str
    runs: list[Run]

    @computed_field  # type: ignore[prop-decorator]
    @property
    def status(self) -> ResultStatus:
        if any(run.verdict == "error" for run in self.runs) or not self._graded():
            return "error"
        return "done"

    @computed_field  # type: ignore[prop-decorator]
    @property
    def verdict(self) -> RunVerdict | None:
        if self.status == "error":
            return None
        failing = [run for run in self._graded() if run.verdict != "passed"]
        return failing[0].verdict if failing else "passed"

    @computed_field  # type: ignore[prop-decorator]
    @property
    def detail(self) -> str | None:
        for run in self.runs:
            if run.verdict == "error":
                return f"{run.device}: {run.detail or 'grader error'}"
        if not self._graded():
            reasons = "; ".join(run.detail or run.device for run in self.runs)
            return f"no run could be graded ({reasons or 'the job lists no devices'})"
        return None

    def _graded(self) -> list[Run]:
        return [run for run in self.runs if run.verdict != "not_graded"]
