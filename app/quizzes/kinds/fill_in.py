"""Fill in the blanks: a template (shown as code) with `____` where each answer goes."""

from __future__ import annotations

import re
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field, RootModel, model_validator
from starlette.datastructures import FormData

from app.i18n import N_
from app.quizzes.kinds.base import (
    AnswerView,
    EmptyPart,
    Feedback,
    InvalidAnswer,
    QuestionKind,
    QuestionOut,
    QuestionSource,
    SourceModel,
)

BLANK = "____"
MAX_LENGTH = 1000
EMPTY_BLANK = N_("Answer every part first: blank %(number)s is empty.")


class Blank(SourceModel):
    """One blank as written, and as the answer key keeps it."""

    accepted: list[str] = Field(min_length=1)
    # Shown as the correct answer; defaults to the first accepted entry (set it when that
    # entry is a regex).
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

    @property
    def shown(self) -> str:
        return self.answer or self.accepted[0]

    def matches(self, given: str) -> bool:
        """Spaces around the answer never count; the whole of it must match."""
        text = given.strip()
        flags = 0 if self.case_sensitive else re.IGNORECASE
        for accepted in self.accepted:
            if self.regex:
                if re.fullmatch(accepted, text, flags):
                    return True
            elif text == accepted.strip() or (
                flags and text.casefold() == accepted.strip().casefold()
            ):
                return True
        return False


class FillIn(QuestionSource):
    kind: Literal["fill_in"]
    template: str = Field(min_length=1)
    blanks: list[Blank] = Field(min_length=1)

    @model_validator(mode="after")
    def _check_blanks(self) -> FillIn:
        count = self.template.count(BLANK)
        if count != len(self.blanks):
            raise ValueError(
                f"template has {count} blank(s) ({BLANK}) but {len(self.blanks)} listed"
            )
        return self


class FillInPublic(BaseModel):
    template: str
    blanks: int

    def pieces(self) -> list[str]:
        """The template's text around the blanks (one more piece than blanks)."""
        return self.template.split(BLANK)


class FillInKey(BaseModel):
    blanks: list[Blank]


class Words(RootModel[list[str]]):
    """One string per blank, in order."""


class FillInOut(QuestionOut):
    kind: Literal["fill_in"] = "fill_in"
    template: str
    blanks: int


class FillInKind(QuestionKind[FillIn, FillInPublic, FillInKey, Words]):
    name = "fill_in"
    source = FillIn
    public_model = FillInPublic
    key_model = FillInKey
    answer_model = Words
    out_model = FillInOut
    # The template is code: translated only with its identifiers (and then the blanks'
    # accepted answers where they name them).
    optional_translated_fields = ("template", "blanks")
    example: ClassVar[dict[str, Any]] = {
        "id": "example-fill-in",
        "kind": "fill_in",
        "prompt": "Move `x` to the GPU.",
        "template": "x = x.____(device)",
        "blanks": [{"accepted": ["to"]}],
        "explanation": "`.to(device)` returns the tensor on that device.",
    }

    def build(self, source: FillIn) -> tuple[FillInPublic, FillInKey]:
        public = FillInPublic(template=source.template, blanks=len(source.blanks))
        return public, FillInKey(blanks=source.blanks)

    def read_answer(self, public: FillInPublic, given: object) -> Words:
        if not isinstance(given, list) or not all(isinstance(a, str) for a in given):
            raise InvalidAnswer("This question takes a list of strings, one per blank.")
        if len(given) != public.blanks:
            raise InvalidAnswer(
                f"This question has {public.blanks} blank(s); give one string each."
            )
        if any(len(a) > MAX_LENGTH for a in given):
            raise InvalidAnswer(f"A blank's answer is at most {MAX_LENGTH} characters.")
        words = [a.strip() for a in given]
        for index, word in enumerate(words):
            if not word:
                raise EmptyPart(EMPTY_BLANK, index, {"number": index + 1})
        return Words(words)

    def read_form(self, public: FillInPublic, form: FormData) -> Words:
        return self.read_answer(
            public, [v if isinstance(v, str) else "" for v in form.getlist("blank")]
        )

    def is_correct(self, key: FillInKey, answer: Words) -> bool:
        return len(key.blanks) == len(answer.root) and all(
            blank.matches(given) for blank, given in zip(key.blanks, answer.root, strict=True)
        )

    def correct_answer(self, public: FillInPublic, key: FillInKey) -> Words:
        return Words([blank.shown for blank in key.blanks])

    def feedback(self, public: FillInPublic, key: FillInKey, answer: Words) -> Feedback:
        """The blanks that are wrong, by index."""
        return Feedback(
            wrong_parts=[
                index
                for index, (blank, given) in enumerate(zip(key.blanks, answer.root, strict=False))
                if not blank.matches(given)
            ]
        )

    def describe_wrong(
        self, public: FillInPublic, answer: Words, parts: list[int | str]
    ) -> list[str]:
        """Each wrong blank as the student filled it."""
        return [
            answer.root[part]
            for part in parts
            if isinstance(part, int) and 0 <= part < len(answer.root)
        ]

    def describe(self, public: FillInPublic, answer: Words) -> AnswerView:
        """The template with the words in it, each in brackets: "x = x.[to](device)"."""
        pieces = public.pieces()
        parts: list[tuple[str, bool]] = []
        for index, piece in enumerate(pieces):
            parts.append((piece, False))
            if index < len(pieces) - 1:
                parts.append((answer.root[index] if index < len(answer.root) else "", True))
        return AnswerView(["".join(f"[{p}]" if blank else p for p, blank in parts)], parts)


KIND = FillInKind()
