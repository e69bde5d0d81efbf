from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from app.quizzes.kinds import QuestionOut as KindQuestionOut
from app.quizzes.kinds import out_union


class LessonRef(BaseModel):
    slug: str
    title: str


class TrackOut(BaseModel):
    slug: str
    title: str
    level: str
    lessons: list[LessonRef]


class ExerciseOut(BaseModel):
    id: str
    title: str
    prompt_html: str
    starter_code: str
    expected_output: str
    devices: list[str]
    setup: str = Field(
        default="",
        description="Python that runs before the student's code in the visible example "
        "(it defines the example's input); empty for none.",
    )
    hints: int = Field(default=0, description="How many hints the exercise has.")
    hints_after: int = Field(
        default=2,
        description="Wrong graded submissions that unlock each next hint: hint k opens "
        "after k × hints_after.",
    )


# A question in the catalog: its kind's `out_model` (app/quizzes/kinds/), one of them by
# `kind`. Type checkers see the common base.
if TYPE_CHECKING:
    QuestionOut = KindQuestionOut
else:
    QuestionOut = out_union()


class LessonOut(BaseModel):
    slug: str
    title: str
    level: str
    track: str
    summary: str
    prerequisites: list[str]
    body_html: str
    exercises: list[ExerciseOut]
    questions: list[QuestionOut]


class LessonProgress(BaseModel):
    slug: str
    questions_total: int
    questions_correct: int
    exercises_total: int
    exercises_passed: int
    completed: bool


class ProgressOut(BaseModel):
    lessons: list[LessonProgress]


class HintOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)  # read from app.lessons.hints.Hint

    number: int = Field(description="1 for the first hint.")
    unlocks_after: int = Field(description="Wrong graded submissions this hint needs.")
    available: bool = Field(description="It may be opened now (or already was).")
    opened: bool
    opened_at: datetime | None
    text_html: str | None = Field(description="The hint, only once opened.")


class HintsOut(BaseModel):
    wrong_submissions: int = Field(description="The caller's wrong graded submissions.")
    hints_after: int
    hints: list[HintOut]
