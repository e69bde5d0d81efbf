"""Every state a row or a run can be in, as one enum per concept.

They are `StrEnum`s: each member is the very string the database stores and the API shows
(`SubmissionStatus.DONE == "done"`, and it serialises as `"done"`), so neither changes. Code
compares against the members, never against the strings: tests/app/test_states.py fails on a
string literal compared with a status, verdict, mode or role anywhere in `app/`.
"""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar, get_args

import grader


class SubmissionStatus(StrEnum):
    """Where a submission is in its grading: stored `queued`, claimed `running`, then
    `done` (graded; see its verdict) or `error` (the platform failed, not the student)."""

    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    ERROR = "error"

    # Not members (a bare annotation is not one): set below, once the members exist.
    UNFINISHED: ClassVar[frozenset[SubmissionStatus]]
    FINISHED: ClassVar[frozenset[SubmissionStatus]]


SubmissionStatus.UNFINISHED = frozenset({SubmissionStatus.QUEUED, SubmissionStatus.RUNNING})
SubmissionStatus.FINISHED = frozenset(SubmissionStatus) - SubmissionStatus.UNFINISHED


class RunVerdict(StrEnum):
    """One device's run, as the grader judged it: the values of the grader's contract
    (`grader.RunVerdict`), checked against it when this module loads."""

    PASSED = "passed"
    WRONG_OUTPUT = "wrong_output"
    RUNTIME_ERROR = "runtime_error"
    TIMEOUT = "timeout"
    MEMORY_LIMIT = "memory_limit"
    OUTPUT_LIMIT = "output_limit"
    # Not graded: this platform has no such device. Never fails a submission.
    NOT_GRADED = "not_graded"
    # The platform failed; retried, then the submission ends in `error`.
    ERROR = "error"


class Verdict(StrEnum):
    """A graded (`done`) submission's verdict: the first run verdict that is not `passed`, by
    the grader's `Result` rules. A run that was not graded or failed never decides it."""

    PASSED = RunVerdict.PASSED.value
    WRONG_OUTPUT = RunVerdict.WRONG_OUTPUT.value
    RUNTIME_ERROR = RunVerdict.RUNTIME_ERROR.value
    TIMEOUT = RunVerdict.TIMEOUT.value
    MEMORY_LIMIT = RunVerdict.MEMORY_LIMIT.value
    OUTPUT_LIMIT = RunVerdict.OUTPUT_LIMIT.value


class SubmissionMode(StrEnum):
    """`grade` counts towards progress; `run` is a try-out on CPU, never compared."""

    GRADE = "grade"
    RUN = "run"


class Role(StrEnum):
    """Students learn and join classes; teachers run classes; an administrator makes
    teachers (the first one with the setup token, app/auth/setup.py)."""

    STUDENT = "student"
    TEACHER = "teacher"
    ADMIN = "admin"


class RevealReason(StrEnum):
    """Why a student may see an exercise's sample solution."""

    PASSED = "passed"
    GAVE_UP = "gave_up"


def _check_against_grader() -> None:
    # The grader's contract is the source of the run verdicts (it never imports the app, so
    # the app follows it): a verdict added there and not here fails at start-up, not later.
    contract = set(get_args(grader.RunVerdict))
    if contract != set(RunVerdict):
        raise RuntimeError(f"RunVerdict differs from grader.RunVerdict: {sorted(contract)}")


_check_against_grader()
