"""The registry of question kinds: every module of this package but `base` is one kind,
found here by its name, with its template partial `app/templates/lessons/questions/<name>.html`
and its script `frontend/questions/<name>.js`. Adding a kind is adding those three files
(see docs/content.md, "Adding a kind of question")."""

from __future__ import annotations

import importlib
import pkgutil
from functools import reduce
from operator import or_
from typing import Annotated, Any

from pydantic import BaseModel, Field

from app.quizzes.kinds.base import (
    AnswerView,
    Checked,
    ContentProblem,
    Distance,
    EmptyPart,
    Feedback,
    InvalidAnswer,
    OutputCheck,
    QuestionKind,
    QuestionOut,
    QuestionSource,
)

AnyKind = QuestionKind[Any, Any, Any, Any]


class UnknownKind(LookupError):
    def __init__(self, name: str) -> None:
        known = ", ".join(sorted(KINDS))
        super().__init__(f"unknown question kind {name!r} (known: {known})")
        self.name = name


def _discover() -> dict[str, AnyKind]:
    """Each module's `KIND`, by name, in the order of the module names."""
    found: dict[str, AnyKind] = {}
    for module_info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if module_info.name == "base" or module_info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        kind = getattr(module, "KIND", None)
        if not isinstance(kind, QuestionKind):
            raise TypeError(f"{module.__name__} must define KIND, an instance of QuestionKind")
        if kind.name != module_info.name:
            raise TypeError(f"{module.__name__}.KIND is named {kind.name!r}; name it as its module")
        found[kind.name] = kind
    return found


KINDS: dict[str, AnyKind] = _discover()


def kind_of(name: str) -> AnyKind:
    """The kind called `name`; UnknownKind (naming the known ones) if there is none."""
    try:
        return KINDS[name]
    except KeyError:
        raise UnknownKind(name) from None


def tagged_union(models: list[type[BaseModel]]) -> Any:
    """One of `models`, told apart by their `kind` field (for pydantic and OpenAPI)."""
    if len(models) == 1:
        return models[0]
    return Annotated[reduce(or_, models), Field(discriminator="kind")]


def source_union() -> Any:
    """A question as written in questions.yaml, of any registered kind."""
    return tagged_union([kind.source for kind in KINDS.values()])


def out_union() -> Any:
    """A question as the catalog API shows it, of any registered kind."""
    return tagged_union([kind.out_model for kind in KINDS.values()])


__all__ = [
    "KINDS",
    "AnswerView",
    "AnyKind",
    "Checked",
    "ContentProblem",
    "Distance",
    "EmptyPart",
    "Feedback",
    "InvalidAnswer",
    "OutputCheck",
    "QuestionKind",
    "QuestionOut",
    "QuestionSource",
    "UnknownKind",
    "kind_of",
    "out_union",
    "source_union",
    "tagged_union",
]
