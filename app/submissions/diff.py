"""The one comparison view of a run: expected and actual output side by side, aligned once, on
the server, by the grader's bounded `LineMatcher`. The student's page, the teacher's drill-down,
the JSON API (`rows` on a run) and the browser script all show these rows; nothing else aligns
output."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field

from app.models.states import RunVerdict, SubmissionMode
from grader import LineMatcher

MAX_COMPARED_LINES = 400


class DiffCell(BaseModel):
    number: int | None = Field(description="1-based line number; null for a gap")
    text: str
    differs: bool


class DiffRow(BaseModel):
    expected: DiffCell
    actual: DiffCell

    @property
    def differs(self) -> bool:
        return self.expected.differs or self.actual.differs


def expected_on(expected: str, device: str) -> str:
    """The expected output of a run on `device`, placeholders filled in as the grader does:
    `{device}` is `cpu` or `cuda:0`, `{device_type}` is `cpu` or `cuda`."""
    device_type = device.split(":", 1)[0]
    name = "cpu" if device_type == "cpu" else (device if ":" in device else f"{device_type}:0")
    return expected.replace("{device}", name).replace("{device_type}", device_type)


def aligned_rows(expected: str, actual: str) -> list[DiffRow]:
    """Rows pairing expected with actual lines; lines only on one side face a gap. Bounded
    time whatever the output: this runs whenever a failed run is shown."""
    left, right = _lines(expected), _lines(actual)
    gap = DiffCell(number=None, text="", differs=False)
    rows: list[DiffRow] = []
    for tag, i1, i2, j1, j2 in LineMatcher(left, right, autojunk=False).get_opcodes():
        same = tag == "equal"
        for k in range(max(i2 - i1, j2 - j1)):
            i, j = i1 + k, j1 + k
            rows.append(
                DiffRow(
                    expected=DiffCell(number=i + 1, text=left[i], differs=not same)
                    if i < i2
                    else gap,
                    actual=DiffCell(number=j + 1, text=right[j], differs=not same)
                    if j < j2
                    else gap,
                )
            )
    return rows


def shows_comparison(run: Mapping[str, Any], mode: str) -> bool:
    """Whether a run is shown as expected-against-actual (a graded run whose output was
    compared and did not match, or a try-out whose output differs from the expected one),
    rather than as plain output."""
    if mode == SubmissionMode.RUN:
        return run.get("output_matches") is False
    return run.get("verdict") != RunVerdict.PASSED and bool(
        run.get("diff") or run.get("verdict") == RunVerdict.WRONG_OUTPUT
    )


def rows_for(run: Mapping[str, Any], expected: str | None, mode: str) -> list[DiffRow] | None:
    if expected is None or not shows_comparison(run, mode):
        return None
    return aligned_rows(
        expected_on(expected, str(run.get("device", "cpu"))), run.get("stdout") or ""
    )


def _lines(text: str) -> list[str]:
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    return lines[:MAX_COMPARED_LINES]
