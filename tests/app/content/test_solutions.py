"""`content check --run` grades every sample solution in the real sandbox."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.cli import main
from tests.app.content.course import THIRD_EXERCISE, THIRD_EXERCISE_ID, write_course

pytestmark = pytest.mark.sandbox


def test_the_built_in_solutions_pass(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["content", "check", "--run"]) == 0
    out = capsys.readouterr().out
    assert "passed  gpu-support-device-independent on cpu" in out
    assert "every sample solution passes" in out


def test_a_solution_that_does_not_match_fails_the_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = write_course(tmp_path)
    (tree / THIRD_EXERCISE / "expected.txt").write_text("41\n")  # the solution prints 42
    assert main(["content", "check", "--run", "--path", str(tree)]) == 1
    out = capsys.readouterr().out
    assert f"FAILED  {THIRD_EXERCISE_ID} on cpu: wrong_output" in out
    assert "-41" in out and "+42" in out
