"""Multiple choice: one right option (radio buttons), or a set of them (checkboxes)."""

from __future__ import annotations

from typing import Any, ClassVar, Literal, TypeGuard

from pydantic import BaseModel, Field, RootModel, StrictInt, model_validator
from starlette.datastructures import FormData

from app.i18n import N_
from app.quizzes.kinds.base import (
    AnswerView,
    InvalidAnswer,
    QuestionKind,
    QuestionOut,
    QuestionSource,
)

PICK_ONE = N_("Pick one of the options.")


class MultipleChoice(QuestionSource):
    kind: Literal["multiple_choice"]
    options: list[str] = Field(min_length=2)
    correct: list[int] = Field(min_length=1)
    multiple: bool = False

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


class ChoicePublic(BaseModel):
    options: list[str]
    multiple: bool


class ChoiceKey(BaseModel):
    correct: list[int]  # sorted


class Chosen(RootModel[StrictInt | list[StrictInt]]):
    """One option index, or the list of them when the question takes several."""

    @property
    def picked(self) -> list[int]:
        return self.root if isinstance(self.root, list) else [self.root]


class MultipleChoiceOut(QuestionOut):
    kind: Literal["multiple_choice"] = "multiple_choice"
    options: list[str]
    multiple: bool


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def option_label(options: list[str], index: int) -> str:
    """ "B. the option's text" (numbers past Z); "(option 7)" for an index it no longer has."""
    if 0 <= index < len(options):
        return f"{chr(ord('A') + index) if index < 26 else index + 1}. {options[index]}"
    return f"(option {index!r})"


class MultipleChoiceKind(QuestionKind[MultipleChoice, ChoicePublic, ChoiceKey, Chosen]):
    name = "multiple_choice"
    source = MultipleChoice
    public_model = ChoicePublic
    key_model = ChoiceKey
    answer_model = Chosen
    out_model = MultipleChoiceOut
    translated_fields = ("prompt", "explanation", "options")
    example: ClassVar[dict[str, Any]] = {
        "id": "example-multiple-choice",
        "kind": "multiple_choice",
        "prompt": "Which device does `torch.ones(2)` use?",
        "options": ["The CPU", "The GPU"],
        "correct": [0],
        "explanation": "Tensors are made on the CPU unless you say otherwise.",
    }

    def build(self, source: MultipleChoice) -> tuple[ChoicePublic, ChoiceKey]:
        public = ChoicePublic(options=source.options, multiple=source.multiple)
        return public, ChoiceKey(correct=sorted(source.correct))

    def read_answer(self, public: ChoicePublic, given: object) -> Chosen:
        last = len(public.options) - 1
        if public.multiple:
            if not isinstance(given, list) or not all(_is_int(i) for i in given):
                raise InvalidAnswer("This question takes a list of option indices.")
            chosen = sorted(given)
            if len(set(chosen)) != len(chosen):
                raise InvalidAnswer("An option index is listed twice.")
            if any(not 0 <= i <= last for i in chosen):
                raise InvalidAnswer(f"Option indices run from 0 to {last}.")
            return Chosen(chosen)
        if not _is_int(given):
            raise InvalidAnswer("This question takes one option index.")
        if not 0 <= given <= last:
            raise InvalidAnswer(f"Option indices run from 0 to {last}.")
        return Chosen(given)

    def read_form(self, public: ChoicePublic, form: FormData) -> Chosen:
        try:
            indices = [int(v) for v in form.getlist("answer") if isinstance(v, str)]
        except ValueError:
            raise InvalidAnswer(PICK_ONE) from None
        if public.multiple:
            return self.read_answer(public, indices)
        if len(indices) != 1:
            raise InvalidAnswer(PICK_ONE)
        return self.read_answer(public, indices[0])

    def is_correct(self, key: ChoiceKey, answer: Chosen) -> bool:
        return sorted(answer.picked) == key.correct

    def correct_answer(self, public: ChoicePublic, key: ChoiceKey) -> Chosen:
        return Chosen(key.correct if public.multiple else key.correct[0])

    def describe(self, public: ChoicePublic, answer: Chosen) -> AnswerView:
        lines = [option_label(public.options, i) for i in answer.picked]
        return AnswerView(lines or ["(nothing chosen)"], [])


KIND = MultipleChoiceKind()
