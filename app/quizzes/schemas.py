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
    explanation_html: str = Field(
        description="Once the answer is revealed (see `revealed`), the question's explanation; "
        "before, only what the question says of the options chosen (often nothing)."
    )
    correct_answer: Any = Field(
        description="The right answer, in the shape of the answer; null until it is revealed."
    )
    tries_left: int = Field(
        description="Wrong answers the student may still give before the right answer is "
        "shown; 0 once it is."
    )
    revealed: bool = Field(
        description="Whether the right answer is shown: answered right once, every try used, "
        "or asked for (POST /api/questions/{id}/reveal)."
    )
    # Only for a wrong answer to a kind that says more (left out otherwise).
    wrong_parts: list[int | str] | None = Field(
        default=None,
        exclude_if=_absent,
        description="The parts of a wrong answer that are wrong, where they are in the answer: "
        "a blank's index (fill in), a left item's id (matching), a chosen option's index "
        "(multiple choice), a line's index in the text (predict the output).",
    )
    distance: Distance | None = Field(
        default=None,
        exclude_if=_absent,
        description="How far a wrong order is from the nearest right one (ordering).",
    )
    rows: list[DiffRow] | None = Field(
        default=None,
        exclude_if=_absent,
        description="The expected output beside the answer, aligned (predict the output); "
        "only once the answer is revealed.",
    )
