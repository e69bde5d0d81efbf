"""The shape of the files under `exercises/`, validated before anything is loaded."""

from __future__ import annotations

from functools import cache
from types import GenericAlias
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator

from app.quizzes.kinds import KINDS, AnyKind, QuestionSource, tagged_union
from app.quizzes.kinds.base import ItemId, TranslatedLanguage
from grader import Comparison, Limits

Level = Literal["beginner", "intermediate", "advanced"]
LEVEL_ORDER: dict[str, int] = {"beginner": 0, "intermediate": 1, "advanced": 2}
Slug = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9-]{0,63}$")]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class Translation(Strict):
    """What every `translations.<language>` block has besides its texts: the fingerprint of
    the English it was translated from (`python -m app content translations --stamp`)."""

    translated_from: str | None = Field(default=None, pattern=r"^[0-9a-f]{12}$")


class TrackTranslation(Translation):
    title: str | None = Field(default=None, min_length=1)


class TrackFile(Strict):
    slug: Slug
    title: str = Field(min_length=1)
    level: Level
    lessons: list[Slug] = Field(min_length=1)
    translations: dict[TranslatedLanguage, TrackTranslation] = {}


class TracksFile(Strict):
    # The languages the course is written in: English, the source, and those `content check`
    # requires every text to be translated into.
    languages: list[Literal["en", "tr"]] = ["en"]
    tracks: list[TrackFile] = Field(min_length=1)

    @field_validator("languages")
    @classmethod
    def _english_first(cls, languages: list[str]) -> list[str]:
        if not languages or languages[0] != "en":
            raise ValueError("English is the source language: list en first")
        if len(set(languages)) != len(languages):
            raise ValueError("a language is listed twice")
        return languages


class CheckYourself(Strict):
    question: str = Field(min_length=1)
    answer: str = Field(min_length=1)


class LessonTranslation(Translation):
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
    translations: dict[TranslatedLanguage, LessonTranslation] = {}


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


class ComparisonFile(Strict, Comparison):
    """An exercise's `comparison:`: the grader's `Comparison` as it is."""


def _tightened(limit: str, *, gt: float | None = None, ge: float | None = None, le: float) -> Any:
    """The grader's `Limits.<limit>` (its default) within the tighter bounds given."""
    return Field(default=Limits.model_fields[limit].default, gt=gt, ge=ge, le=le)


class LimitsFile(Strict, Limits):
    """An exercise's `limits:`: the grader's `Limits`, tightened. The grader takes what an
    operator may configure (up to 600 s); one exercise of a course shared by a class gets at
    most 120 s of wall and CPU time, 16 GiB, 512 processes, 1 GiB files, 4096 open files
    and 1 MiB of output, and no less than 64 MB and 16 open files (Python and torch need
    them to start)."""

    wall_time_s: float = _tightened("wall_time_s", gt=0, le=120)
    cpu_time_s: float = _tightened("cpu_time_s", gt=0, le=120)
    memory_mb: int = _tightened("memory_mb", ge=64, le=16384)
    processes: int = _tightened("processes", ge=1, le=512)
    file_size_mb: int = _tightened("file_size_mb", ge=1, le=1024)
    open_files: int = _tightened("open_files", ge=16, le=4096)
    output_kb: int = _tightened("output_kb", ge=1, le=1024)


Device = Literal["cpu", "cuda", "rocm", "mps", "xpu"]
VariantName = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9-]{0,39}$")]


class VariantFile(Strict):
    """A hidden check: `setup` runs instead of the example's before the student's code."""

    name: VariantName
    setup: str = Field(min_length=1)


Hint = Annotated[str, Field(min_length=1)]


class ExerciseTranslation(Translation):
    title: str | None = Field(default=None, min_length=1)
    prompt: str | None = Field(default=None, min_length=1)
    hints: list[Hint] | None = None


class ExerciseFile(Strict):
    id: ItemId
    title: str = Field(min_length=1)
    prompt: str = Field(min_length=1)
    # Progressive hints, opened one by one: the first after `hints_after` wrong graded
    # submissions, the second after twice as many, and so on.
    hints: list[Hint] = Field(default=[], max_length=10)
    hints_after: int = Field(default=2, ge=1, le=50)
    translations: dict[TranslatedLanguage, ExerciseTranslation] = {}
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
