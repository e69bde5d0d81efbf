"""Every comparison mode: a match, a mismatch with its diff, and the device placeholders."""

from __future__ import annotations

import pytest

from grader import Comparison, ComparisonError, compare

WHITESPACE = Comparison()
EXACT = Comparison(mode="exact")
NUMERIC = Comparison(mode="numeric", rtol=1e-4, atol=1e-6)
PATTERNS = Comparison(mode="patterns")


def test_default_mode_is_whitespace() -> None:
    assert Comparison().mode == "whitespace"


@pytest.mark.parametrize(
    ("expected", "actual"),
    [
        ("a b\nc", "a b\nc\n"),
        ("a b\nc", "a   b  \nc\n\n\n"),
        ("a\tb", "a b"),
        ("x\r\ny", "x\ny"),
        ("", ""),
        ("", "\n\n"),
    ],
)
def test_whitespace_matches(expected: str, actual: str) -> None:
    assert compare(expected, actual, WHITESPACE, "cpu") == (True, "")


def test_whitespace_mismatch_has_a_unified_diff() -> None:
    matched, diff = compare("a\nb\nc", "a\nB\nc\n", WHITESPACE, "cpu")
    assert not matched
    assert diff.splitlines() == [
        "--- expected",
        "+++ actual",
        "@@ -1,3 +1,3 @@",
        " a",
        "-b",
        "+B",
        " c",
    ]


def test_whitespace_keeps_leading_blank_lines_and_word_boundaries() -> None:
    assert not compare("ab", "a b", WHITESPACE, "cpu")[0]
    assert not compare("a", "\na", WHITESPACE, "cpu")[0]


def test_exact_matches_byte_for_byte_after_line_endings() -> None:
    assert compare("a  b\n", "a  b\r\n", EXACT, "cpu") == (True, "")
    assert compare("a  b", "a  b\n", EXACT, "cpu") == (True, "")  # print()'s final newline


def test_exact_mismatch_on_spacing() -> None:
    matched, diff = compare("a  b", "a b", EXACT, "cpu")
    assert not matched
    assert "-a  b" in diff and "+a b" in diff


@pytest.mark.parametrize(
    ("expected", "actual"),
    [
        ("[[3.0, 3.0, 3.0]]", "[[3.0000001, 2.99999999, 3.0]]"),
        ("tensor([1.0000, -2.0000])", "tensor([ 1.00001, -2.0000])"),
        ("tensor([1., 2.])", "tensor([1.0000, 2.0000])"),
        ("loss 1e-05", "loss 0.00001"),
        ("nan inf -inf", "nan inf -inf"),
        ("x = 3", "x =   3.0"),
        ("tensor([0.5000], dtype=torch.float32)", "tensor([0.50001], dtype=torch.float32)"),
    ],
)
def test_numeric_matches_within_tolerance(expected: str, actual: str) -> None:
    assert compare(expected, actual, NUMERIC, "cpu") == (True, "")


@pytest.mark.parametrize(
    ("expected", "actual"),
    [
        ("[[3.0, 3.0]]", "[[3.1, 3.0]]"),
        ("loss 1e-05", "loss 1e-03"),
        ("nan", "1.0"),
        ("inf", "-inf"),
        ("tensor([1.0])", "array([1.0])"),
        ("1 2", "1 2 3"),
        ("a\nb", "a"),
        ("float32", "float64"),
    ],
)
def test_numeric_mismatches(expected: str, actual: str) -> None:
    matched, diff = compare(expected, actual, NUMERIC, "cpu")
    assert not matched
    assert diff.startswith("--- expected\n+++ actual")


def test_numeric_uses_the_given_tolerances() -> None:
    loose = Comparison(mode="numeric", rtol=0.1, atol=0)
    assert compare("100", "109", loose, "cpu")[0]
    assert not compare("100", "111", loose, "cpu")[0]
    absolute = Comparison(mode="numeric", rtol=0, atol=0.5)
    assert compare("0.0", "0.4", absolute, "cpu")[0]


def test_patterns_fullmatch_each_line() -> None:
    expected = r"loss: \d+\.\d+" + "\n" + r"step \d+ of 10"
    assert compare(expected, "loss: 0.25\nstep 3 of 10\n", PATTERNS, "cpu") == (True, "")
    assert not compare(expected, "loss: 0.25 extra\nstep 3 of 10", PATTERNS, "cpu")[0]


def test_patterns_need_the_same_number_of_lines() -> None:
    matched, diff = compare(r"\d+", "1\n2", PATTERNS, "cpu")
    assert not matched
    assert "+2" in diff


def test_invalid_pattern_is_an_exercise_error() -> None:
    with pytest.raises(ComparisonError):
        compare("(unclosed", "x", PATTERNS, "cpu")


@pytest.mark.parametrize(
    ("device", "expected_line"),
    [("cpu", "cpu cpu"), ("cuda", "cuda:0 cuda"), ("cuda:1", "cuda:1 cuda")],
)
def test_device_placeholders(device: str, expected_line: str) -> None:
    assert compare("{device} {device_type}", expected_line, WHITESPACE, device) == (True, "")


def test_placeholder_mismatch_shows_the_substituted_text() -> None:
    matched, diff = compare("device: {device}", "device: cpu", WHITESPACE, "cuda")
    assert not matched
    assert "-device: cuda:0" in diff


def test_placeholders_are_literal_inside_patterns() -> None:
    assert compare(r"on {device}\.?", "on cuda:0.", PATTERNS, "cuda")[0]
    assert not compare("on {device}", "on cudaX0", PATTERNS, "cuda")[0]


def test_placeholders_in_numeric_mode() -> None:
    assert compare("tensor([1.], device='{device}')", "tensor([1.0000], device='cuda:0')",
                   NUMERIC, "cuda")[0]  # fmt: skip
