"""Comparison and diffs against hostile output: a run's output is the student's, so every
mode and every diff must take time bounded by, or linear in, its size. Before, one output
line of 64 KiB ("1111…1x" in numeric mode) held the grader, and in embedded mode the whole
web process, for minutes; a 400-line expected output against a student's reversed copy of
it took the diff seconds."""

from __future__ import annotations

import functools
import random
import re
import time

import pytest

from grader import Comparison, Grader, Job, LineMatcher, compare
from grader.comparison import (
    MAX_DIFF_LINES,
    MAX_PATTERN_LINE,
    compare_output,
    unified_diff,
)
from grader.feedback import needs_device_hint, ran_out_of_memory, trim_traceback
from tests.timing import cpu_seconds

# CPU seconds of the calling thread, so that other work on a busy machine does not count.
# Each case takes milliseconds; the code before took seconds to minutes on the worst ones.
BOUND_S = 0.5
SIZE = 64 * 1024


def fill(unit: str, tail: str = "") -> str:
    """`unit` repeated to 64 KiB, `tail` included."""
    return unit * ((SIZE - len(tail)) // len(unit)) + tail


HOSTILE_OUTPUTS = {
    "digits": fill("1"),
    "digits then a letter": fill("1", "x"),
    "digits then two dots": fill("1", ".."),
    "digits then an e": fill("1", "e"),
    "digits, a dot, digits, a letter": fill("1", ".") + fill("1", "x"),
    "1e1e1e": fill("1e"),
    "1.1.1.1": fill("1."),
    "0.0.0.0": fill("0."),
    "dots": fill("."),
    ".5.5.5": fill(".5"),
    "dashes": fill("-"),
    "signs": fill("+-"),
    "1e+1e+": fill("1e+"),
    "nannan": fill("nan"),
    "infinityinf": fill("infinity"),
    "spaces then a letter": fill(" ", "x"),
    "tabs and spaces then a letter": fill("\t ", "x"),
    "numbers and spaces": fill("1 "),
    "short lines": fill("1\n"),
    "blank lines": fill("\n", "x"),
    "carriage returns": fill("\r", "x"),
}
# One expected line, so that a one-line output is compared line against line.
MODES = {
    "exact": (Comparison(mode="exact"), "1.0"),
    "whitespace": (Comparison(), "1.0"),
    "numeric": (Comparison(mode="numeric", rtol=1e-4), "1.0"),
    # An author's pattern that backtracks: quadratic in the line it is matched against.
    "patterns": (Comparison(mode="patterns"), r".*1.*x"),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", HOSTILE_OUTPUTS)
def test_every_mode_is_fast_on_hostile_output(mode: str, name: str) -> None:
    comparison, expected = MODES[mode]
    actual = HOSTILE_OUTPUTS[name]
    assert cpu_seconds(lambda: compare(expected, actual, comparison, "cpu")) < BOUND_S


@pytest.mark.parametrize("mode", ["exact", "whitespace", "numeric"])
def test_every_mode_is_fast_against_itself(mode: str) -> None:
    """The same hostile line expected and printed: a match, found in time."""
    comparison, _ = MODES[mode]
    line = HOSTILE_OUTPUTS["digits then a letter"]
    outcome: list[tuple[bool, str]] = []
    took = cpu_seconds(lambda: outcome.append(compare(line, line, comparison, "cpu")))
    assert took < BOUND_S
    assert outcome == [(True, "")]


# The numeric tokenizer's pattern before it became atomic: the reference for its matches.
_BACKTRACKING_NUMBER = re.compile(
    r"(?<![\w.])[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf(?:inity)?)(?![\w.])",
    re.IGNORECASE,
)


def test_the_numeric_tokenizer_finds_what_it_found_before() -> None:
    from grader.comparison import _NUMBER

    rng = random.Random(7)
    alphabet = "0123456789..eE+-nNaAiIfty x,[]("
    for _ in range(20_000):
        line = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 14)))
        assert _NUMBER.findall(line) == _BACKTRACKING_NUMBER.findall(line), line
        assert _NUMBER.split(line) == _BACKTRACKING_NUMBER.split(line), line


def test_a_numeric_line_of_digits_still_compares_as_numbers() -> None:
    numeric = Comparison(mode="numeric", rtol=1e-4)
    assert compare("1" * 5000, "1" * 5000 + ".0", numeric, "cpu")[0]
    assert not compare("1.0", fill("1", "x"), numeric, "cpu")[0]


def test_a_line_too_long_for_its_pattern_fails_with_a_detail() -> None:
    patterns = Comparison(mode="patterns")
    line = "1" * (MAX_PATTERN_LINE + 1)
    match = compare_output(r"\d+", line, patterns, "cpu")
    assert not match.matched
    assert match.diff.startswith("--- expected")
    assert match.detail is not None
    assert f"output line 1 has {MAX_PATTERN_LINE + 1} characters" in match.detail
    assert str(MAX_PATTERN_LINE) in match.detail
    assert compare_output(r"\d+", line[:MAX_PATTERN_LINE], patterns, "cpu").matched


def test_lines_at_the_pattern_limit_are_matched_in_time() -> None:
    """The longest lines that reach the regex engine, against a backtracking pattern."""
    patterns = Comparison(mode="patterns")
    expected = "\n".join([r".*1.*x"] * 5)
    actual = "\n".join(["1" * MAX_PATTERN_LINE] * 5)
    outcome: list[tuple[bool, str]] = []
    assert cpu_seconds(lambda: outcome.append(compare(expected, actual, patterns, "cpu"))) < BOUND_S
    assert not outcome[0][0]


def test_a_wrong_line_count_in_patterns_mode_has_no_detail() -> None:
    actual = "1\n" + "1" * (MAX_PATTERN_LINE + 1)
    match = compare_output(r"\d+", actual, Comparison(mode="patterns"), "cpu")
    assert not match.matched and match.detail is None


def cycle(lines: list[str], size: int = SIZE) -> str:
    """`lines` repeated, one a line, to about `size` characters."""
    unit = "\n".join(lines) + "\n"
    return unit * (size // len(unit))


HUNDRED = [str(i) for i in range(100)]
THREE_HUNDRED = [f"{i:03}" for i in range(300)]
# difflib sets aside lines making more than 1% of the output; these stay under that.
HOSTILE_DIFFS = {
    # An exercise printing 400 lines of a hundred kinds; the student prints them backwards.
    "a hundred kinds of line, reversed": (
        "\n".join(HUNDRED * 4),
        cycle(HUNDRED[::-1]),
    ),
    "both sides long": (
        cycle(THREE_HUNDRED),
        cycle(THREE_HUNDRED[::7] + THREE_HUNDRED[1::7] + THREE_HUNDRED[2::7]),
    ),
    "few kinds of line, reversed": (
        cycle(["0", "1", "2"], 800),
        cycle(["2", "1", "0"]),
    ),
    "many distinct lines, reversed": (
        "\n".join(str(i) for i in range(10_000)),
        "\n".join(str(i) for i in reversed(range(10_000))),
    ),
    "long lines differing at their end": (
        cycle(["a" * 200 + "x", "a" * 200 + "y"]),
        cycle(["a" * 200 + "y", "a" * 200 + "x", "a" * 200 + "z"]),
    ),
    "one long line each": (fill("1", "x"), fill("1", "y")),
    "shared start, hostile middle": (
        cycle(["same"], 20_000) + cycle(["0", "1", "2"], 800),
        cycle(["same"], 20_000) + cycle(["2", "1", "0"], 40_000),
    ),
}


@pytest.mark.parametrize("name", HOSTILE_DIFFS)
def test_the_diff_is_fast_on_hostile_output(name: str) -> None:
    expected, actual = HOSTILE_DIFFS[name]
    diff: list[str] = []
    assert cpu_seconds(lambda: diff.append(unified_diff(expected, actual))) < BOUND_S
    assert diff[0].startswith("--- expected\n+++ actual\n@@ ")


@pytest.mark.parametrize("name", HOSTILE_DIFFS)
def test_the_bounded_alignment_is_still_a_diff(name: str) -> None:
    """However the lines were paired, the opcodes turn the expected lines into the actual."""
    expected, actual = (text.splitlines() for text in HOSTILE_DIFFS[name])
    rebuilt: list[str] = []
    for tag, i1, i2, j1, j2 in LineMatcher(expected, actual).get_opcodes():
        if tag == "equal":
            assert expected[i1:i2] == actual[j1:j2]
        rebuilt += actual[j1:j2]
    assert rebuilt == actual


def test_a_long_diff_ends_with_a_truncation_line() -> None:
    diff = unified_diff("", "\n".join(str(i) for i in range(5000))).split("\n")
    assert diff[:3] == ["--- expected", "+++ actual", "@@ -0,0 +1,5000 @@"]
    assert len(diff) == 2 + MAX_DIFF_LINES + 1
    assert diff[-1] == f"@@ diff truncated after {MAX_DIFF_LINES} lines @@"
    assert diff[-2] == f"+{MAX_DIFF_LINES - 2}"


def test_a_shared_start_keeps_its_line_numbers() -> None:
    """Past the alignment budget the common first lines are set aside, not renumbered."""
    same = [f"line {i}" for i in range(3000)]
    diff = unified_diff("\n".join([*same, "end"]), "\n".join([*same, "END", *same]))
    assert diff.split("\n")[2:7] == [
        "@@ -2998,4 +2998,3004 @@",
        " line 2997",
        " line 2998",
        " line 2999",
        "-end",
    ]


HOSTILE_STDERR = {
    "spaces": fill(" "),
    "a deeply indented frame": " " * (SIZE // 2)
    + 'File "x.py", line 1\n'
    + fill("y\n")[SIZE // 2 :],
    "an unclosed file name": 'File "' + fill("a"),
    "frames": fill('  File "torch.py", line 1\n'),
    "dotted words": fill("a."),
    "newlines": fill("\n"),
    "a long word": fill("a"),
}


@pytest.mark.parametrize("name", HOSTILE_STDERR)
def test_error_output_helpers_are_fast(name: str) -> None:
    stderr = HOSTILE_STDERR[name]
    for helper in (trim_traceback, needs_device_hint, ran_out_of_memory):
        assert cpu_seconds(functools.partial(helper, stderr)) < BOUND_S, helper.__name__


def test_a_hostile_numeric_output_gets_its_verdict_quickly(grader: Grader) -> None:
    """End to end: the student prints one line of about 64 KiB of digits (within the output
    limit) to a numeric-mode exercise; the wrong_output verdict comes in a moment."""
    code = 'print("1" * 65500 + "x")\n'
    job = Job(
        id="hostile-numeric",
        code=code,
        expected_output="1.0",
        comparison=Comparison(mode="numeric", rtol=1e-4),
        devices=["cpu"],
    )
    started = time.monotonic()
    result = grader.grade(job)
    took = time.monotonic() - started
    run = result.runs[0]
    assert run.verdict == "wrong_output", run
    assert len(run.stdout) == 65502
    assert run.diff.startswith("--- expected\n+++ actual\n@@ -1 +1 @@\n-1.0\n+111")
    assert took < 2.0


def test_a_line_too_long_for_its_pattern_says_so_in_the_run(grader: Grader) -> None:
    job = Job(
        id="long-pattern-line",
        code=f'print("1" * {MAX_PATTERN_LINE + 1})\n',
        expected_output=r"\d+",
        comparison=Comparison(mode="patterns"),
        devices=["cpu"],
    )
    run = grader.grade(job).runs[0]
    assert run.verdict == "wrong_output"
    assert run.detail is not None and f"at most {MAX_PATTERN_LINE}" in run.detail
