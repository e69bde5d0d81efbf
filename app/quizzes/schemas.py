from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from app.quizzes.kinds import Distance
from app.submissions.diff import DiffRow


def _absent(value: object) -> bool:
    return value is None


class AnswerIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    answer: Any


class AnswerResult(BaseModel):
    correct: bool
    explanation_html: str
    correct_answer: Any
    # Only for a wrong answer to a kind that says more (left out otherwise).
    distance: Distance | None = Field(
        default=None,
        exclude_if=_absent,
        description="How far a wrong order is from the nearest right one (ordering).",
    )
    rows: list[DiffRow] | None = Field(
        default=None,
        exclude_if=_absent,
        description="The expected output beside the answer, aligned (predict the output).",
    )
