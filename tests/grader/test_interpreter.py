"""What of the interpreter's installation the sandbox may see."""

from __future__ import annotations

import sys
import sysconfig
from pathlib import Path

import pytest

from grader import Grader, GraderConfig
from grader.interpreter import ExposureError, inspect_interpreter
from tests.grader.support import QUICK, grade

pytestmark = pytest.mark.sandbox

# A package of the interpreter's own environment that submissions never need.
INSTALLED_PACKAGE = Path(sysconfig.get_paths()["purelib"]) / "argon2"


def test_a_protected_path_inside_the_interpreter_environment_is_covered_not_refused() -> None:
    """Like the grader installed (not editable) into the very environment it runs: the
    environment is exposed read-only, the protected directory in it shows up empty."""
    assert INSTALLED_PACKAGE.is_dir(), INSTALLED_PACKAGE
    config = GraderConfig(workers=1, hidden_paths=[str(INSTALLED_PACKAGE)])
    with Grader(config) as grader:
        assert "cpu" not in grader.problems, grader.problems
        code = (
            "import os, torch\n"
            f"print(os.listdir({str(INSTALLED_PACKAGE)!r}))\n"
            "print(torch.ones(2).sum().item())\n"
        )
        [run] = grade(grader, code, "[]\n2.0", limits=QUICK).runs
    assert run.verdict == "passed", (run.stdout, run.stderr, run.detail)


def test_an_interpreter_living_in_a_protected_path_is_refused() -> None:
    prefix = str(Path(sys.prefix).resolve())
    with pytest.raises(ExposureError, match="it is a protected path"):
        inspect_interpreter.__wrapped__(sys.executable, (prefix,))
