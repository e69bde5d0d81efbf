"""The shape of the files under `exercises/`, validated before anything is loaded."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

Level = Literal["beginner", "intermediate", "advanced"]
LEVEL_ORDER: dict[str, int] = {"beginner": 0, "intermediate": 1, "advanced": 2}
Slug = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9-]{0,63}$")]
ItemId = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9-]{0,79}$")]
BLANK = "____"


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class TrackFile(Strict):
    slug: Slug
    title: str = Field(min_length=1)
    level: Level
    lessons: list[Slug] = Field(min_length=1)


class TracksFile(Strict):
    tracks: list[TrackFile] = Field(min_length=1)


class CheckYourself(Strict):
    question: str = Field(min_length=1)
    answer: str = Field(min_length=1)


class LessonTranslation(Strict):
    """The lesson's own words in another language; what is left out stays in English."""

    title: str | None = Field(default=None, min_length=1)
    summary: str | None = Field(default=None, min_length=1)
    check_yourself: list[CheckYourself] | None = None


class LessonFile(Strict):
    slug: Slug
    title: str = Field(min_length=1)
    level: Level
    summary: str = Field(min_length=1)
    prerequisites: list[Slug] = []
    check_yourself: list[CheckYourself] = []
    translations: dict[Literal["tr"], LessonTranslation] = {}


class MultipleChoice(Strict):
    id: ItemId
    kind: Literal["multiple_choice"]
    prompt: str = Field(min_length=1)
    options: list[str] = Field(min_length=2)
    correct: list[int] = Field(min_length=1)
    multiple: bool = False
    explanation: str = Field(min_length=1)

    @model_validator(mode="after")
    def _check_correct(self) -> MultipleChoice:
        if len(set(self.correct)) != len(self.correct):
            raise ValueError("correct lists an option twice")
        if any(not 0 <= i < len(self.options) for i in self.correct):
            raise ValueError(f"correct must be option indices from 0 to {len(self.options) - 1}")
        if not self.multiple and len(self.correct) != 1:
            raise ValueError("a question with multiple: false has exactly one correct option")
        if len(set(self.options)) != len(self.options):
            raise ValueError("options must be distinct")
        return self


class Blank(Strict):
    accepted: list[str] = Field(min_length=1)
    # Shown as the correct answer after answering; defaults to the first accepted entry
    # (set it when that entry is a regex).
    answer: str | None = None
    case_sensitive: bool = True
    regex: bool = False

    @model_validator(mode="after")
    def _check_regex(self) -> Blank:
        if self.regex:
            for pattern in self.accepted:
                try:
                    re.compile(pattern)
                except re.error as exc:
                    raise ValueError(f"accepted pattern {pattern!r} is not a regex: {exc}") from exc
        return self


class FillIn(Strict):
    id: ItemId
    kind: Literal["fill_in"]
    prompt: str = Field(min_length=1)
    template: str = Field(min_length=1)
    blanks: list[Blank] = Field(min_length=1)
    explanation: str = Field(min_length=1)

    @model_validator(mode="after")
    def _check_blanks(self) -> FillIn:
        count = self.template.count(BLANK)
        if count != len(self.blanks):
            raise ValueError(
                f"template has {count} blank(s) ({BLANK}) but {len(self.blanks)} listed"
            )
        return self


class Pair(Strict):
    left: str = Field(min_length=1)
    right: str = Field(min_length=1)


class Matching(Strict):
    id: ItemId
    kind: Literal["matching"]
    prompt: str = Field(min_length=1)
    pairs: list[Pair] = Field(min_length=2)
    explanation: str = Field(min_length=1)

    @field_validator("pairs")
    @classmethod
    def _distinct_sides(cls, pairs: list[Pair]) -> list[Pair]:
        for side in ("left", "right"):
            texts = [getattr(p, side) for p in pairs]
            if len(set(texts)) != len(texts):
                raise ValueError(f"every {side} item must be distinct")
        return pairs


QuestionFile = Annotated[MultipleChoice | FillIn | Matching, Field(discriminator="kind")]


class QuestionsFile(Strict):
    questions: list[QuestionFile] = []


class ComparisonFile(Strict):
    mode: Literal["exact", "whitespace", "numeric", "patterns"] = "whitespace"
    rtol: float = Field(default=1e-5, ge=0)
    atol: float = Field(default=1e-8, ge=0)


class LimitsFile(Strict):
    wall_time_s: float = Field(default=10.0, gt=0, le=120)
    cpu_time_s: float = Field(default=10.0, gt=0, le=120)
    memory_mb: int = Field(default=1024, ge=64, le=16384)
    processes: int = Field(default=32, ge=1, le=512)
    file_size_mb: int = Field(default=16, ge=1, le=1024)
    open_files: int = Field(default=128, ge=16, le=4096)
    output_kb: int = Field(default=64, ge=1, le=1024)


Device = Literal["cpu", "cuda", "rocm", "mps", "xpu"]
VariantName = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9-]{0,39}$")]


class VariantFile(Strict):
    """A hidden check: `setup` runs instead of the example's before the student's code."""

    name: VariantName
    setup: str = Field(min_length=1)


class ExerciseFile(Strict):
    id: ItemId
    title: str = Field(min_length=1)
    prompt: str = Field(min_length=1)
    devices: list[Device] = ["cpu"]
    comparison: ComparisonFile = ComparisonFile()
    limits: LimitsFile = LimitsFile()
    setup: str = ""
    variants: list[VariantFile] = Field(default=[], max_length=5)

    @field_validator("variants")
    @classmethod
    def _distinct_names(cls, variants: list[VariantFile]) -> list[VariantFile]:
        names = [variant.name for variant in variants]
        if len(set(names)) != len(names):
            raise ValueError("every variant needs a name of its own")
        return variants

    @field_validator("devices")
    @classmethod
    def _cpu_first(cls, devices: list[str]) -> list[str]:
        if "cpu" not in devices:
            raise ValueError("every exercise is graded on cpu; list it")
        if len(set(devices)) != len(devices):
            raise ValueError("a device is listed twice")
        return devices
