"""Comparing a run's output with the expected output, and the diff a student sees."""

from __future__ import annotations

import difflib
import math
import re

from .contract import Comparison

_NUMBER = re.compile(
    r"(?<![\w.])[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf(?:inity)?)(?![\w.])",
    re.IGNORECASE,
)
_BLANKS = re.compile(r"[ \t]+")


class ComparisonError(ValueError):
    """The expected output itself is unusable (e.g. an invalid pattern): an exercise bug."""


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
    mode = comparison.mode
    expected = expand_placeholders(_lines_text(expected), device, escape=mode == "patterns")
    actual = _lines_text(actual)
    if mode == "exact":
        matched = _strip_final_newline(expected) == _strip_final_newline(actual)
    elif mode == "whitespace":
        matched = _whitespace_lines(expected) == _whitespace_lines(actual)
    elif mode == "numeric":
        matched = _numeric_match(expected, actual, comparison.rtol, comparison.atol)
    elif mode == "patterns":
        matched = _patterns_match(expected, actual)
    else:  # pragma: no cover - pydantic rejects other modes
        raise ComparisonError(f"unknown comparison mode {mode!r}")
    return matched, "" if matched else unified_diff(expected, actual)


def unified_diff(expected: str, actual: str) -> str:
    lines = difflib.unified_diff(
        expected.splitlines(), actual.splitlines(), "expected", "actual", lineterm=""
    )
    return "\n".join(lines)


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


def _patterns_match(expected: str, actual: str) -> bool:
    patterns, lines = _trimmed_lines(expected), _trimmed_lines(actual)
    compiled = []
    for number, pattern in enumerate(patterns, start=1):
        try:
            compiled.append(re.compile(pattern))
        except re.error as exc:
            raise ComparisonError(f"expected line {number} is not a valid pattern: {exc}") from exc
    if len(compiled) != len(lines):
        return False
    return all(regex.fullmatch(line) for regex, line in zip(compiled, lines, strict=True))
