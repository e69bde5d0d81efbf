from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

from app.models import RevealReason, SubmissionMode, SubmissionStatus, Verdict
from app.submissions.diff import DiffRow
from grader import Run


class SubmissionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    code: str


class RunOut(Run):
    """One device's run as the grader reported it (`grader.Run`, the grader's contract), less
    what never leaves the platform."""

    # Hidden checks are summed up in `hidden_checks`; a variant's name is for teachers only.
    variant: SkipJsonSchema[str | None] = Field(default=None, exclude=True)
    hidden_runs: SkipJsonSchema[list[Run]] = Field(default_factory=list, exclude=True)
    rows: list[DiffRow] | None = Field(
        default=None,
        description="A failed run's output against the expected output, aligned line by line"
        " (the view the student's page and the teacher's drill-down show); null when the run"
        " is not shown that way, and in lists (their outputs are previews).",
    )
    output_matches: bool | None = Field(
        default=None,
        description="Try-out runs (`mode` `run`) that ran to a clean end: whether the output"
        " matches the exercise's expected output, compared as grading compares it (the"
        " try-out stays ungraded). null for graded runs, for a try-out that stopped with an"
        " error or a limit, and for try-outs recorded before this was checked.",
    )
    truncated: bool = Field(
        default=False,
        description="stdout, stderr or diff here keep only their first and last KiB, around"
        " a line '… truncated (N bytes) …'.",
    )


class HiddenChecksOut(BaseModel):
    """How the exercise's hidden variants went: never their input, output or expected
    output. A variant counts as passed when it passed on every device it ran on."""

    passed: int
    total: int
    failed: list[str] | None = Field(
        default=None, description="The names of the variants that failed; teachers only."
    )


class CommentOut(BaseModel):
    """A teacher's comment on this submission, for its student to read."""

    id: int
    text: str
    created_at: datetime
    teacher: str | None = Field(description="The teacher's name; null once their account is gone.")


class OutputHintOut(BaseModel):
    """A hint a teacher of the student's class wrote for every submission whose output falls
    in this wrong-output group (outputs that differ only in trailing spaces, trailing blank
    lines or line ends are one group)."""

    id: int
    text: str
    updated_at: datetime
    teacher: str | None = Field(description="The teacher's name; null once their account is gone.")


class SubmissionOut(BaseModel):
    id: int
    exercise_id: str
    status: SubmissionStatus
    verdict: Verdict | None
    runs: list[RunOut]
    created_at: datetime
    finished_at: datetime | None
    detail: str | None = None
    mode: SubmissionMode = SubmissionMode.GRADE
    position: int | None = Field(
        default=None,
        description="Place in the graders' line while queued there (1 is next); null while it"
        " waits for the caller's own earlier submissions (`waiting_for_own`) and once it runs.",
    )
    waiting_for_own: int | None = Field(
        default=None,
        description="While queued behind the caller's own earlier submissions: how many of"
        " them are unfinished. Each student has a few submissions graded at a time"
        " (one by default), so that no one holds up everyone else; null otherwise.",
    )
    wait_estimate_s: float | None = Field(
        default=None,
        description="While queued in the graders' line (`position` set): about how many"
        " seconds until grading starts, as position × the mean run time of the latest"
        " finished submissions ÷ the submissions running now. null when unknown (nothing"
        " graded yet) and otherwise.",
    )
    code: str | None = None
    output_truncated: bool = Field(
        default=False,
        description="The stored output was cut for good: an older attempt that is neither the"
        " latest nor the best. (In a list every run's output is shortened; a run's `truncated`"
        " says so, and the submission on its own has what is stored.)",
    )
    hidden_checks: HiddenChecksOut | None = Field(
        default=None,
        description="Hidden checks of the exercise; null when it has none or they did not run "
        "(they run on a device only once the visible example passed there).",
    )
    comments: list[CommentOut] = Field(
        default_factory=list,
        description="Teachers' comments on this submission, oldest first (in the student's own"
        " submission answers; empty elsewhere).",
    )
    output_hints: list[OutputHintOut] = Field(
        default_factory=list,
        description="Graded submissions with a wrong output: the hints the teachers of the"
        " student's classes wrote on that output's group (in the student's own submission"
        " answers; empty elsewhere).",
    )


class SolutionOut(BaseModel):
    solution_code: str
    reason: RevealReason
