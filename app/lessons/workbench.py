"""What the lesson page shows of a graded run: expected and actual output side by side with
the differing lines marked, trimmed error output, verdicts in words. The browser script
(frontend/feedback.js) draws the same from the JSON API; keep the two in step."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.i18n import N_, gettext
from app.models import RunVerdict
from app.submissions import jobs
from grader import LineMatcher

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
MAX_COMPARED_LINES = 400


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


def expected_on(expected: str, device: str) -> str:
    """The expected output of a run on `device`, placeholders filled in as the grader does:
    `{device}` is `cpu` or `cuda:0`, `{device_type}` is `cpu` or `cuda`."""
    device_type = device.split(":", 1)[0]
    name = "cpu" if device_type == "cpu" else (device if ":" in device else f"{device_type}:0")
    return expected.replace("{device}", name).replace("{device_type}", device_type)


@dataclass(frozen=True)
class Cell:
    number: int | None  # 1-based line number, None for a gap
    text: str
    differs: bool


@dataclass(frozen=True)
class Row:
    expected: Cell
    actual: Cell

    @property
    def differs(self) -> bool:
        return self.expected.differs or self.actual.differs


def _lines(text: str) -> list[str]:
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    return lines[:MAX_COMPARED_LINES]


def side_by_side(expected: str, actual: str) -> list[Row]:
    """Rows pairing expected with actual lines; lines only on one side face a gap. Aligned by
    the grader's LineMatcher: bounded time whatever the output (this runs on every page view)."""
    left, right = _lines(expected), _lines(actual)
    gap = Cell(None, "", False)
    rows: list[Row] = []
    for tag, i1, i2, j1, j2 in LineMatcher(left, right, autojunk=False).get_opcodes():
        same = tag == "equal"
        for k in range(max(i2 - i1, j2 - j1)):
            i, j = i1 + k, j1 + k
            rows.append(
                Row(
                    Cell(i + 1, left[i], not same) if i < i2 else gap,
                    Cell(j + 1, right[j], not same) if j < j2 else gap,
                )
            )
    return rows


def trim_lines(text: str, keep: int = STDERR_LINES) -> tuple[str, int]:
    """The last `keep` lines of `text` and how many lines before them were left out."""
    lines = text.rstrip("\n").split("\n")
    if len(lines) <= keep:
        return "\n".join(lines), 0
    return "\n".join(lines[-keep:]), len(lines) - keep
