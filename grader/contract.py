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


class Variant(BaseModel):
    """A hidden check: the same code, after another setup (other input data, another seed),
    must print this variant's own expected output. The student never sees any of it."""

    name: str = Field(min_length=1)
    setup: str
    expected_output: str


class Job(BaseModel):
    id: str
    code: str
    expected_output: str
    comparison: Comparison = Comparison()
    devices: list[str] = Field(default_factory=lambda: ["cpu"])
    limits: Limits = Limits()
    # Runs before `code`, in its namespace, for the visible example (trusted: the exercise's).
    setup: str | None = None
    # Graded on each device after the visible example passed there.
    variants: list[Variant] = Field(default_factory=list)


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
    # None: the visible example. Else the hidden variant this run checked.
    variant: str | None = None
    # The hidden variants' runs on this device (only when the example passed here), in the
    # job's order. They carry no stdout, stderr, diff or hint: a hidden check's output never
    # leaves the grader, so nothing downstream can show it.
    hidden_runs: list[Run] = Field(default_factory=list)

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

    def as_hidden(self, variant: str) -> Run:
        """This run as the hidden check of `variant`: its verdict, never its output."""
        return Run(
            device=self.device,
            verdict=self.verdict,
            stdout="",
            stderr="",
            exit_code=self.exit_code,
            duration_ms=self.duration_ms,
            detail=self.detail,
            variant=variant,
        )


class Result(BaseModel):
    job_id: str
    runs: list[Run]

    @computed_field  # type: ignore[prop-decorator]
    @property
    def status(self) -> ResultStatus:
        every = [*self.runs, *(hidden for run in self.runs for hidden in run.hidden_runs)]
        if any(run.verdict == "error" for run in every) or not self._graded():
            return "error"
        return "done"

    @computed_field  # type: ignore[prop-decorator]
    @property
    def verdict(self) -> RunVerdict | None:
        if self.status == "error":
            return None
        # Every visible example first: a student fixes what they can see before what they cannot.
        graded = self._graded()
        ordered = [*graded, *(hidden for run in graded for hidden in run.hidden_runs)]
        return next((run.verdict for run in ordered if run.verdict != "passed"), "passed")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def detail(self) -> str | None:
        for run in self.runs:
            if run.verdict == "error":
                return f"{run.device}: {run.detail or 'grader error'}"
        for run in self.runs:
            for hidden in run.hidden_runs:
                if hidden.verdict == "error":
                    # Shown to the student: no variant name.
                    return f"{run.device}, a hidden check: {hidden.detail or 'grader error'}"
        if not self._graded():
            reasons = "; ".join(run.detail or run.device for run in self.runs)
            return f"no run could be graded ({reasons or 'the job lists no devices'})"
        return None

    def _graded(self) -> list[Run]:
        return [run for run in self.runs if run.verdict != "not_graded"]
