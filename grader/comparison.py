"""Comparing a run's output with the expected output, and the diff a student sees.

The output is the student's: every step here takes time linear in its size, or bounded, so
that no output can hold the grader (or, embedded, the web process) for long."""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from .contract import Comparison

# The atomic group (?>...) never gives back what it matched. Giving back could not help: a
# shorter number ends before a digit, a dot or a letter, which (?![\w.]) refuses anyway; but
# trying every shorter one made "1111…1x" cost time quadratic in the run of digits.
_NUMBER = re.compile(
    r"(?<![\w.])[-+]?(?>(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf(?:inity)?)(?![\w.])",
    re.IGNORECASE,
)
_BLANKS = re.compile(r"[ \t]+")

# Patterns come from the exercise's author, lines from the student: a pattern that
# backtracks (".*a.*b") costs time quadratic or worse in its line, so longer lines never
# reach the regex engine and simply fail to match.
MAX_PATTERN_LINE = 2000
DIFF_CONTEXT = 3
MAX_DIFF_LINES = 1000  # a diff's lines after its header; the rest is one "truncated" line
# SequenceMatcher's worst case grows as len(a) * len(b) * min(len(a), len(b)): each of its
# up to 2 * min(...) searches for the longest match may look at every pair of lines. Past
# this (about 30 ms at worst), only the lines between the common first and last ones are
# aligned, and if those are still too many they are paired in order.
MAX_ALIGN_WORK = 2_000_000


class ComparisonError(ValueError):
    """The expected output itself is unusable (e.g. an invalid pattern): an exercise bug."""


@dataclass(frozen=True)
class OutputMatch:
    """What `compare_output` found: `diff` is "" on a match; `detail` says why a mismatch is
    not shown by the diff alone (a line too long to match against its pattern)."""

    matched: bool
    diff: str
    detail: str | None = None


def device_names(device: str) -> tuple[str, str]:
    """(`{device}`, `{device_type}`) for a run on `device`: ("cpu", "cpu"), ("cuda:0", "cuda")."""
    device_type = device.split(":", 1)[0]
    if device_type == "cpu":
        return "cpu", "cpu"
    return (device if ":" in device else f"{device_type}:0"), device_type


def expand_placeholders(expected: str, device: str, escape: bool = False) -> str:
    name, device_type = device_names(device)
    if escape:
        name, device_type = re.escape(name), re.escape(device_type)
    return expected.replace("{device}", name).replace("{device_type}", device_type)


def compare(expected: str, actual: str, comparison: Comparison, device: str) -> tuple[bool, str]:
    """Whether `actual` matches `expected` on `device`, and a unified diff ("" on a match)."""
    match = compare_output(expected, actual, comparison, device)
    return match.matched, match.diff


def compare_output(expected: str, actual: str, comparison: Comparison, device: str) -> OutputMatch:
    """`compare`, with the detail a mismatch may carry (build_run makes it the run's detail)."""
    mode = comparison.mode
    expected = expand_placeholders(_lines_text(expected), device, escape=mode == "patterns")
    actual = _lines_text(actual)
    detail = None
    if mode == "exact":
        matched = _strip_final_newline(expected) == _strip_final_newline(actual)
    elif mode == "whitespace":
        matched = _whitespace_lines(expected) == _whitespace_lines(actual)
    elif mode == "numeric":
        matched = _numeric_match(expected, actual, comparison.rtol, comparison.atol)
    elif mode == "patterns":
        matched, detail = _patterns_match(expected, actual)
    else:  # pragma: no cover - pydantic rejects other modes
        raise ComparisonError(f"unknown comparison mode {mode!r}")
    if matched:
        return OutputMatch(True, "")
    return OutputMatch(False, unified_diff(expected, actual), detail)


class LineMatcher(difflib.SequenceMatcher[int]):
    """difflib's SequenceMatcher for two lists of lines, in bounded time: each distinct line
    becomes a small int (no comparison costs more than one step however long the lines),
    and past MAX_ALIGN_WORK only the part between the common first and last lines is
    aligned, or, if that is still too large, its lines are paired in order."""

    def __init__(self, a: Sequence[str], b: Sequence[str], autojunk: bool = True) -> None:
        ids: dict[str, int] = {}
        self._a = [ids.setdefault(line, len(ids)) for line in a]
        self._b = [ids.setdefault(line, len(ids)) for line in b]
        self._autojunk = autojunk
        super().__init__(None, self._a, self._b, autojunk)

    def get_matching_blocks(self) -> list[difflib.Match]:
        a, b = self._a, self._b
        if _align_work(len(a), len(b)) <= MAX_ALIGN_WORK:
            return super().get_matching_blocks()
        n, m = len(a), len(b)
        head = 0
        while head < min(n, m) and a[head] == b[head]:
            head += 1
        tail = 0
        while tail < min(n, m) - head and a[n - 1 - tail] == b[m - 1 - tail]:
            tail += 1
        blocks = [difflib.Match(0, 0, head)] if head else []
        middle_a, middle_b = a[head : n - tail], b[head : m - tail]
        if _align_work(len(middle_a), len(middle_b)) <= MAX_ALIGN_WORK:
            inner = difflib.SequenceMatcher(None, middle_a, middle_b, self._autojunk)
            blocks += [
                difflib.Match(i + head, j + head, size)
                for i, j, size in inner.get_matching_blocks()[:-1]
            ]
        if tail:
            blocks.append(difflib.Match(n - tail, m - tail, tail))
        return [*blocks, difflib.Match(n, m, 0)]


def unified_diff(expected: str, actual: str) -> str:
    """difflib.unified_diff's text ("" for equal lines), aligned by LineMatcher and cut after
    MAX_DIFF_LINES lines."""
    a, b = expected.splitlines(), actual.splitlines()
    lines: list[str] = []
    for group in LineMatcher(a, b).get_grouped_opcodes(DIFF_CONTEXT):
        if len(lines) >= MAX_DIFF_LINES:
            break
        first, last = group[0], group[-1]
        lines.append(f"@@ -{_hunk_range(first[1], last[2])} +{_hunk_range(first[3], last[4])} @@")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines += [" " + line for line in a[i1:i2]]
                continue
            lines += ["-" + line for line in a[i1:i2]]
            lines += ["+" + line for line in b[j1:j2]]
    if not lines:
        return ""
    if len(lines) > MAX_DIFF_LINES:
        lines[MAX_DIFF_LINES:] = [f"@@ diff truncated after {MAX_DIFF_LINES} lines @@"]
    return "\n".join(["--- expected", "+++ actual", *lines])


def _hunk_range(start: int, stop: int) -> str:
    """A hunk's "start,length" as difflib writes it: 1-based; the line before an empty one."""
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"


def _align_work(n: int, m: int) -> int:
    return n * m * min(n, m)


def _lines_text(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _strip_final_newline(text: str) -> str:
    # Files end with a newline and print() adds one; neither is part of what was asked for.
    return text[:-1] if text.endswith("\n") else text


def _trimmed_lines(text: str) -> list[str]:
    lines = [line.rstrip() for line in text.split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _whitespace_lines(text: str) -> list[str]:
    return [_BLANKS.sub(" ", line) for line in _trimmed_lines(text)]


def _numeric_match(expected: str, actual: str, rtol: float, atol: float) -> bool:
    expected_lines, actual_lines = _trimmed_lines(expected), _trimmed_lines(actual)
    if len(expected_lines) != len(actual_lines):
        return False
    return all(
        _numeric_line_match(want, got, rtol, atol)
        for want, got in zip(expected_lines, actual_lines, strict=True)
    )


def _numeric_line_match(expected: str, actual: str, rtol: float, atol: float) -> bool:
    want_numbers, want_text = _split_numbers(expected)
    got_numbers, got_text = _split_numbers(actual)
    if want_text != got_text or len(want_numbers) != len(got_numbers):
        return False
    return all(
        _close(float(got), float(want), rtol, atol)
        for want, got in zip(want_numbers, got_numbers, strict=True)
    )


def _split_numbers(line: str) -> tuple[list[str], list[str]]:
    numbers = _NUMBER.findall(line)
    # Spacing next to numbers varies with print alignment (tensor([ 1.0000, -2.0000])).
    text = [_BLANKS.sub(" ", part).strip() for part in _NUMBER.split(line)]
    return numbers, text


def _close(actual: float, expected: float, rtol: float, atol: float) -> bool:
    if math.isnan(expected) or math.isnan(actual):
        return math.isnan(expected) and math.isnan(actual)
    if math.isinf(expected) or math.isinf(actual):
        return actual == expected
    return abs(actual - expected) <= atol + rtol * abs(expected)


def _patterns_match(expected: str, actual: str) -> tuple[bool, str | None]:
    patterns, lines = _trimmed_lines(expected), _trimmed_lines(actual)
    compiled = []
    for number, pattern in enumerate(patterns, start=1):
        try:
            compiled.append(re.compile(pattern))
        except re.error as exc:
            raise ComparisonError(f"expected line {number} is not a valid pattern: {exc}") from exc
    if len(compiled) != len(lines):
        return False, None
    for number, line in enumerate(lines, start=1):
        if len(line) > MAX_PATTERN_LINE:
            return False, (
                f"output line {number} has {len(line)} characters; a line matched against "
                f"a pattern may have at most {MAX_PATTERN_LINE}"
            )
    return all(regex.fullmatch(line) for regex, line in zip(compiled, lines, strict=True)), None
