"""`content check --run` grades every sample solution in the real sandbox."""

from __future__ import annotations

import shutil
from pathlib import Path

from app.cli import main
from app.config import REPO_ROOT

EXPECTED = "lessons/gpu-support/exercises/gpu-support-device-independent/expected.txt"


def test_the_built_in_solutions_pass(capsys):
    assert main(["content", "check", "--run"]) == 0
    out = capsys.readouterr().out
    assert "passed  gpu-support-device-independent on cpu" in out
    assert "every sample solution passes" in out


def test_a_solution_that_does_not_match_fails_the_check(tmp_path: Path, capsys):
    tree = tmp_path / "exercises"
    shutil.copytree(REPO_ROOT / "exercises", tree)
    (tree / EXPECTED).write_text("[[3.0, 3.0, 3.0]]\nTrue\n")
    assert main(["content", "check", "--run", "--path", str(tree)]) == 1
    out = capsys.readouterr().out
    assert "FAILED  gpu-support-device-independent on cpu: wrong_output" in out
    assert "-[[3.0, 3.0, 3.0]]" in out
