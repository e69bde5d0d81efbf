"""The shape of the files under `exercises/`, validated before anything is loaded."""

from __future__ import annotations

from functools import cache
from types import GenericAlias
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator

from app.quizzes.kinds import KINDS, AnyKind, QuestionSource, tagged_union
from app.quizzes.kinds.base import ItemId

Level = Literal["beginner", "intermediate", "advanced"]
LEVEL_ORDER: dict[str, int] = {"beginner": 0, "intermediate": 1, "advanced": 2}
Slug = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9-]{0,63}$")]


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


class QuestionsFile(Strict):
    """`questions.yaml`. Each entry's format belongs to its kind (`app/quizzes/kinds/`);
    `questions_file()` gives the model that reads them."""

    questions: list[QuestionSource] = []


@cache
def _questions_file(kinds: tuple[AnyKind, ...]) -> type[QuestionsFile]:
    entries: Any = GenericAlias(list, (tagged_union([kind.source for kind in kinds]),))
    return create_model("QuestionsFile", __base__=QuestionsFile, questions=(entries, []))


def questions_file() -> type[QuestionsFile]:
    """`QuestionsFile` whose entries are read by the registered kinds, told apart by `kind`."""
    return _questions_file(tuple(KINDS.values()))


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
