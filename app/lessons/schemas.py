from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field


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


class _QuestionOut(BaseModel):
    id: str
    prompt_html: str


class MultipleChoiceOut(_QuestionOut):
    kind: Literal["multiple_choice"] = "multiple_choice"
    options: list[str]
    multiple: bool


class FillInOut(_QuestionOut):
    kind: Literal["fill_in"] = "fill_in"
    template: str
    blanks: int


class MatchItem(BaseModel):
    id: str
    text: str


class MatchingOut(_QuestionOut):
    kind: Literal["matching"] = "matching"
    left: list[MatchItem]
    right: list[MatchItem]


QuestionOut = Annotated[MultipleChoiceOut | FillInOut | MatchingOut, Field(discriminator="kind")]


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
