"""What the lesson page shows of a graded run: trimmed error output, verdicts in words, the
hidden checks (the side-by-side comparison is `app.submissions.diff`). The browser script
(frontend/feedback.js) draws the same from the JSON API; keep the two in step."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.grading import jobs
from app.i18n import N_, gettext
from app.models import RunVerdict, SubmissionMode

VERDICTS = {
    "passed": N_("Passed"),
    "wrong_output": N_("Wrong output"),
    "runtime_error": N_("Runtime error"),
    "timeout": N_("Timeout"),
    "memory_limit": N_("Memory limit"),
    "output_limit": N_("Output limit"),
    "not_graded": N_("Not graded: no such device here"),
    "error": N_("Platform error"),
}
# A try-out is never graded: its run says whether the output matched, never "Passed".
TRY_OUT_OUTCOMES = {
    True: N_("Output matches the expected output"),
    False: N_("Output differs from the expected output"),
    None: N_("Ran; output not checked"),
}
STDERR_LINES = 30  # the last lines of error output shown; the rest is folded away


def verdict_label(verdict: str | None) -> str:
    if not verdict:
        return ""
    return gettext(VERDICTS.get(verdict, verdict.replace("_", " ").capitalize()))


def try_out_matches(runs: list[dict[str, Any]]) -> bool | None:
    """A try-out's one run: whether its output matched the expected output (None: not
    checked, see app.grading.jobs.checked_try_out)."""
    return runs[0].get("output_matches") if runs else None


def try_out_label(matches: bool | None) -> str:
    return gettext(TRY_OUT_OUTCOMES[matches])


def run_label(run: dict[str, Any], mode: str) -> str:
    """A run's outcome in words: its verdict, or for a try-out that ran to a clean end,
    whether its output matched."""
    if mode == SubmissionMode.RUN and run.get("verdict") == RunVerdict.PASSED:
        return try_out_label(run.get("output_matches"))
    return verdict_label(run.get("verdict"))


def hidden_checks(runs: list[dict[str, Any]]) -> dict[str, Any] | None:
    """How a graded submission's hidden checks went (counts, the failed variants' names for
    teachers' pages) and whether the visible example passed wherever it ran; None if none
    ran. Nothing else of a hidden check is ever stored."""
    checks = jobs.hidden_checks(runs)
    if checks is not None:
        checks["example_passed"] = all(
            run.get("verdict") in (RunVerdict.PASSED, RunVerdict.NOT_GRADED) for run in runs
        )
    return checks


def trim_lines(text: str, keep: int = STDERR_LINES) -> tuple[str, int]:
    """The last `keep` lines of `text` and how many lines before them were left out."""
    lines = text.rstrip("\n").split("\n")
    if len(lines) <= keep:
        return "\n".join(lines), 0
    return "\n".join(lines[-keep:]), len(lines) - keep


# What the submission templates call by name (registered by app/main.py).
TEMPLATE_HELPERS: dict[str, Callable[..., Any]] = {
    "verdict_label": verdict_label,
    "run_label": run_label,
    "try_out_matches": try_out_matches,
    "try_out_label": try_out_label,
    "trim_lines": trim_lines,
    "hidden_checks": hidden_checks,
}
