"""Multiple choice: one right option (radio buttons), or a set of them (checkboxes)."""

from __future__ import annotations

from typing import Any, ClassVar, Literal, TypeGuard

from pydantic import BaseModel, Field, RootModel, StrictInt, model_validator
from starlette.datastructures import FormData

from app.i18n import N_
from app.quizzes.kinds.base import (
    AnswerView,
    ContentProblem,
    EmptyPart,
    Feedback,
    InvalidAnswer,
    QuestionKind,
    QuestionOut,
    QuestionSource,
)

PICK_ONE = N_("Pick one of the options.")
PICK_SOME = N_("Answer every part first: choose at least one option.")


class MultipleChoice(QuestionSource):
    kind: Literal["multiple_choice"]
    options: list[str] = Field(min_length=2)
    correct: list[int] = Field(min_length=1)
    multiple: bool = False
    # What a wrong answer that chose an option is told about it (Markdown, "" for nothing),
    # one per option, before the right answer is shown.
    option_feedback: list[str] | None = None

    @model_validator(mode="after")
    def _check_correct(self) -> MultipleChoice:
        if self.option_feedback is not None and len(self.option_feedback) != len(self.options):
            raise ValueError(
                f"option_feedback has {len(self.option_feedback)} entries for "
                f'{len(self.options)} options; give one per option, in order ("" for none)'
            )
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
    # Each option's feedback as HTML ("" for none); None when the question has none.
    feedback_html: list[str] | None = None


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
    # Required of a translation when the English has it (see `count_problems`).
    optional_translated_fields = ("option_feedback",)
    example: ClassVar[dict[str, Any]] = {
        "id": "example-multiple-choice",
        "kind": "multiple_choice",
        "prompt": "Which device does `torch.ones(2)` use?",
        "options": ["The CPU", "The GPU"],
        "correct": [0],
        "explanation": "Tensors are made on the CPU unless you say otherwise.",
    }

    def build(self, source: MultipleChoice) -> tuple[ChoicePublic, ChoiceKey]:
        # Imported here: app.content imports this package to read questions.yaml.
        from app.content.markdown import render_inline

        public = ChoicePublic(options=source.options, multiple=source.multiple)
        feedback = (
            None
            if source.option_feedback is None
            else [render_inline(text) if text else "" for text in source.option_feedback]
        )
        return public, ChoiceKey(correct=sorted(source.correct), feedback_html=feedback)

    def english_fields(self, source: MultipleChoice) -> dict[str, Any]:
        """`option_feedback` only where it is written, so that adding the field to this kind
        left the fingerprints of the translations made before it as they were."""
        fields = super().english_fields(source)
        if source.option_feedback is None:
            del fields["option_feedback"]
        return fields

    def count_problems(self, source: MultipleChoice, words: BaseModel) -> list[ContentProblem]:
        problems = super().count_problems(source, words)
        if source.option_feedback is not None and getattr(words, "option_feedback", None) is None:
            problems.append(ContentProblem("option_feedback", "missing: translate it"))
        return problems

    def read_answer(self, public: ChoicePublic, given: object) -> Chosen:
        last = len(public.options) - 1
        if public.multiple:
            if not isinstance(given, list) or not all(_is_int(i) for i in given):
                raise InvalidAnswer("This question takes a list of option indices.")
            chosen = sorted(given)
            if not chosen:
                # Never right (a question has a correct option): not given yet, not wrong.
                raise EmptyPart(PICK_SOME, None)
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

    def feedback(self, public: ChoicePublic, key: ChoiceKey, answer: Chosen) -> Feedback:
        """The options chosen that are wrong (not those left out)."""
        return Feedback(wrong_parts=list(_wrong_picks(key, answer)))

    def describe_wrong(
        self, public: ChoicePublic, answer: Chosen, parts: list[int | str]
    ) -> list[str]:
        return [option_label(public.options, part) for part in parts if isinstance(part, int)]

    def explain_choice(self, public: ChoicePublic, key: ChoiceKey, answer: Chosen) -> str:
        """The feedback of each option chosen wrongly, where the question has it."""
        if key.feedback_html is None:
            return ""
        texts = [
            key.feedback_html[index]
            for index in _wrong_picks(key, answer)
            if index < len(key.feedback_html)
        ]
        return " ".join(text for text in texts if text)

    def describe(self, public: ChoicePublic, answer: Chosen) -> AnswerView:
        lines = [option_label(public.options, i) for i in answer.picked]
        return AnswerView(lines or ["(nothing chosen)"], [])


def _wrong_picks(key: ChoiceKey, answer: Chosen) -> list[int]:
    return [index for index in sorted(answer.picked) if index not in key.correct]


KIND = MultipleChoiceKind()
