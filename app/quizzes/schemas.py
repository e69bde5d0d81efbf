from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class AnswerIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    answer: Any


class AnswerResult(BaseModel):
    correct: bool
    explanation_html: str
    correct_answer: Any
