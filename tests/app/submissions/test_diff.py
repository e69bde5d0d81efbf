"""The side-by-side rows (student page, teacher drill-down, API, browser script): the usual
alignment for ordinary output, and bounded time for hostile output (the rows are drawn again
on every view of the page). Before, 400 expected lines of two or three kinds against the
student's reversed copy took difflib close to a second per view."""

from __future__ import annotations

import pytest

from app.submissions.diff import MAX_COMPARED_LINES, DiffCell, DiffRow, aligned_rows
from tests.timing import cpu_seconds

# CPU seconds of this thread (other work on a busy machine does not count); the rows take
# a few milliseconds now.
BOUND_S = 0.5  # the old alignment took 0.76-0.98 s of CPU on these inputs


def cells(rows: list[DiffRow]) -> list[tuple[tuple[int | None, str, bool], ...]]:
    return [
        tuple((cell.number, cell.text, cell.differs) for cell in (row.expected, row.actual))
        for row in rows
    ]


def test_ordinary_output_is_aligned_line_by_line() -> None:
    rows = aligned_rows("a\nb\nc\nd", "a\nB\nc\nd\ne\n")
    assert cells(rows) == [
        ((1, "a", False), (1, "a", False)),
        ((2, "b", True), (2, "B", True)),
        ((3, "c", False), (3, "c", False)),
        ((4, "d", False), (4, "d", False)),
        ((None, "", False), (5, "e", True)),
    ]


def test_a_missing_line_faces_a_gap() -> None:
    rows = aligned_rows("1\n2\n3", "1\n3")
    assert [row.differs for row in rows] == [False, True, False]
    assert rows[1].actual == DiffCell(number=None, text="", differs=False)


def lines(kinds: list[str], count: int = MAX_COMPARED_LINES) -> list[str]:
    return [kinds[i % len(kinds)] for i in range(count)]


LONG = "1" * 150
HOSTILE = {
    "two kinds, pairs against singles": (
        [line for line in lines(["0", "1"], MAX_COMPARED_LINES // 2) for _ in (0, 1)],
        lines(["0", "1"])[::-1],
    ),
    "three kinds, reversed": (lines(["0", "1", "2"]), lines(["0", "1", "2"])[::-1]),
    "long lines differing at their end": (
        lines([LONG + "0", LONG + "1", LONG + "2"]),
        lines([LONG + "0", LONG + "1", LONG + "2"])[::-1],
    ),
    "one long line each": (["1" * 65_000 + "x"], ["1" * 65_000 + "y"]),
}


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_output_is_drawn_in_bounded_time(name: str) -> None:
    expected, actual = ("\n".join(side) for side in HOSTILE[name])
    rows: list[list[DiffRow]] = []
    assert cpu_seconds(lambda: rows.append(aligned_rows(expected, actual))) < BOUND_S
    left = [row.expected.text for row in rows[0] if row.expected.number is not None]
    right = [row.actual.text for row in rows[0] if row.actual.number is not None]
    assert (left, right) == HOSTILE[name]  # every line shown once, in order


def test_lines_too_many_to_align_are_paired_in_order() -> None:
    """Past the alignment budget, the common first and last lines still face each other and
    the differing middle is paired in order, all of it marked."""
    expected = ["head", *lines(["0", "1", "2"], 300), "tail"]
    actual = ["head", *lines(["2", "1", "0"], 300), "tail"]
    rows = aligned_rows("\n".join(expected), "\n".join(actual))
    assert len(rows) == 302
    assert not rows[0].differs and not rows[-1].differs
    assert all(row.differs for row in rows[1:-1])
    assert [(row.expected.number, row.actual.number) for row in rows[1:4]] == [
        (2, 2),
        (3, 3),
        (4, 4),
    ]
