"""What the lesson page shows of a graded run: trimmed error output, verdicts in words, the
hidden checks (the side-by-side comparison is `app.submissions.diff`). The browser script
(frontend/feedback.js) draws the same from the JSON API; keep the two in step."""

from __future__ import annotations

from typing import Any

from app.i18n import N_, gettext
from app.models import RunVerdict
from app.submissions import jobs

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
STDERR_LINES = 30  # the last lines of error output shown; the rest is folded away


def verdict_label(verdict: str | None) -> str:
    if not verdict:
        return ""
    return gettext(VERDICTS.get(verdict, verdict.replace("_", " ").capitalize()))


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
