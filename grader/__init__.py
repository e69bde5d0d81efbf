"""Sandboxed, warm, device-aware grading of submitted PyTorch code.

    from grader import Grader, GraderConfig, Job

    with Grader(GraderConfig()) as grader:
        result = grader.grade(Job(id="1", code="print(1)", expected_output="1"))

The app talks to the grader only through the models of `grader.contract`.
"""

from .comparison import ComparisonError, LineMatcher, compare
from .config import GraderConfig
from .contract import Comparison, ComparisonMode, Job, Limits, Result, Run, RunVerdict, Variant
from .service import Grader

__version__ = "0.1.0"

__all__ = [
    "Comparison",
    "ComparisonError",
    "ComparisonMode",
    "Grader",
    "GraderConfig",
    "Job",
    "Limits",
    "LineMatcher",
    "Result",
    "Run",
    "RunVerdict",
    "Variant",
    "compare",
]
