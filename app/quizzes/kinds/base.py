"""What every question kind provides.

A kind is one module of this package. It owns the question's format in `questions.yaml`
(`source`), the part the student may see (`public_model`), the answer key (`key_model`),
the answer as the API takes it and the attempts table keeps it (`answer_model`), the
catalog's JSON (`out_model`), and the rules: how the key is built from the file, how an
answer is read (JSON or HTML form) and checked, and how an answer reads in words. The rest
of the app stores `public`, `key` and answers as JSON and asks the registry
(`app.quizzes.kinds`) for the kind that reads them: it never branches on `kind`.

A wrong answer is told what is wrong with it before it is told the right answer: which of
its parts are wrong (`Feedback.wrong_parts`), how far it is from a right one, and what the
content says of what was chosen (`explain_choice`); the right answer, and what would give it
away, wait until the question is revealed (app/quizzes/reveal.py, the one rule for every
kind).

Every text a student reads exists in each language the course is written in: a kind names
its translatable fields (`translated_fields`, `optional_translated_fields`) and says how a
translation must fit the English (`translation_problems`) and how it is built
(`build_translation`); see docs/content.md, "Translations".
"""

from __future__ import annotations

import hashlib
import json
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Annotated, Any, ClassVar, Generic, Literal, NamedTuple, TypeVar

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError, create_model
from starlette.datastructures import FormData

from app.i18n import gettext
from app.submissions.diff import DiffRow
from grader import Comparison

# Question and exercise ids share one namespace (and this format): the loader refuses an
# id used twice across the whole course.
ItemId = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9-]{0,79}$")]
TEMPLATES = "lessons/questions"
Stored = Mapping[str, Any]
# The languages content is translated into (English is the source).
TranslatedLanguage = Literal["tr"]
# What a translation block carries besides the translated fields: the fingerprint of the
# English it was translated from (app/content/translations.py).
TRANSLATED_FROM = "translated_from"
# Wrong answers a question takes before it shows its right answer (`tries` in questions.yaml).
DEFAULT_TRIES = 2
MAX_TRIES = 10


def stable_digest(*parts: str) -> str:
    """A hex digest of `parts` alone, the same at every visit and in every process: what the
    ids and orders a student is shown are made from, so that they never depend on chance."""
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


class InvalidAnswer(ValueError):
    """The answer does not have the shape this question takes (the message says why).
    `message` may be marked `N_` with `%(name)s` fields filled from `params`: `str()` gives it
    in English (the API's), `translated()` in the page's language."""

    def __init__(self, message: str, params: Mapping[str, object] | None = None) -> None:
        self.message = message
        self.params = dict(params or {})
        super().__init__(message % self.params if self.params else message)

    def translated(self) -> str:
        text = gettext(self.message)
        return text % self.params if self.params else text


class EmptyPart(InvalidAnswer):
    """A part of the answer left empty (a blank, a row with nothing chosen), refused as an
    empty answer is, never recorded as a wrong one. `part`: where it is in the answer as the
    API takes it (a blank's index, a left item's id), None for the whole answer; the API's
    422 names it (`loc`)."""

    def __init__(
        self, message: str, part: int | str | None, params: Mapping[str, object] | None = None
    ) -> None:
        super().__init__(message, params)
        self.part = part


class SourceModel(BaseModel):
    """Part of a content file: an unknown field is a typo, text is stripped."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class QuestionSource(SourceModel):
    """What every question in `questions.yaml` has. A kind's source model narrows `kind` to
    `Literal["<its name>"]` and adds its own fields."""

    id: ItemId
    kind: str
    prompt: str = Field(min_length=1)
    explanation: str = Field(min_length=1)
    # Wrong answers before the right answer is shown (app/quizzes/reveal.py).
    tries: int = Field(default=DEFAULT_TRIES, ge=1, le=MAX_TRIES)
    # The question in other languages: its kind's translatable fields (checked by
    # `QuestionKind.translate`), and `translated_from`.
    translations: dict[TranslatedLanguage, dict[str, Any]] = {}


class QuestionOut(BaseModel):
    """A question in the catalog API; a kind's `out_model` adds `kind` and its public part.
    Never anything of the key."""

    id: str
    prompt_html: str


@dataclass(frozen=True)
class AnswerView:
    """An answer in words. `lines`: one line each (an option, a pair, the filled template);
    `parts`: (text, is_blank) pieces of a template, for a kind that draws its answer in
    place (empty otherwise)."""

    lines: list[str]
    parts: list[tuple[str, bool]]


class Distance(BaseModel):
    """How far an answer is from the nearest right one, for a kind that can measure it:
    `in_place` of the right answer's `total` parts are already where they belong, and
    `steps` single edits would make it right."""

    in_place: int
    total: int
    steps: int


class Feedback(BaseModel):
    """What a wrong answer is told besides the right answer, where its kind can say more:
    which of its parts are wrong (`wrong_parts`: where each is in the answer as the API takes
    it, a blank's or a line's index, a left item's id, a chosen option's index), how far it is
    from a right one, and the expected output beside the answer (rows as a failed run's,
    app/submissions/diff.py). `rows` give the answer away: they wait, as the right answer
    does, until the question is revealed (`before_reveal`)."""

    wrong_parts: list[int | str] | None = None
    distance: Distance | None = None
    rows: list[DiffRow] | None = None

    def before_reveal(self) -> Feedback:
        """What may be shown while the right answer is not: all but the expected output."""
        return self.model_copy(update={"rows": None})


class Checked(NamedTuple):
    """An answer checked: as recorded, whether it is right, and the right answer (both in
    the API's JSON shape)."""

    recorded: JsonValue
    correct: bool
    correct_answer: JsonValue


class OutputCheck(NamedTuple):
    """Code a question shows with what it says the code prints: `content check --run` runs
    it in the sandbox on every device and compares, as it grades a sample solution.
    `field`: where the code is written, relative to the question."""

    field: str
    code: str
    expected: str
    comparison: Comparison


class ContentProblem(NamedTuple):
    """Something wrong with a question as written that its source model cannot see alone;
    `field` is relative to the question (e.g. "pairs")."""

    field: str
    message: str


SourceT = TypeVar("SourceT", bound=QuestionSource)
PublicT = TypeVar("PublicT", bound=BaseModel)
KeyT = TypeVar("KeyT", bound=BaseModel)
AnswerT = TypeVar("AnswerT", bound=BaseModel)


class QuestionKind(ABC, Generic[SourceT, PublicT, KeyT, AnswerT]):
    """One kind of question. Subclasses set the class attributes and implement the abstract
    methods on typed models; the methods at the end take and give the stored JSON, for the
    rest of the app."""

    name: ClassVar[str]
    source: type[SourceT]
    public_model: type[PublicT]
    key_model: type[KeyT]
    answer_model: type[AnswerT]
    out_model: type[QuestionOut]
    # A question of this kind as written in questions.yaml: the registry's tests run it
    # through the loader, the catalog, the lesson page and the teachers' views.
    example: ClassVar[dict[str, Any]]

    # The fields of `source` a translation must give (the text a student reads) ...
    translated_fields: ClassVar[tuple[str, ...]] = ("prompt", "explanation")
    # ... and those it may give: code, the same in every language unless its identifiers are
    # translated (a fill-in template, its accepted answers).
    optional_translated_fields: ClassVar[tuple[str, ...]] = ()

    @property
    def template(self) -> str:
        """The partial that draws the question's inputs on the lesson page."""
        return f"{TEMPLATES}/{self.name}.html"

    # Content

    @abstractmethod
    def build(self, source: SourceT) -> tuple[PublicT, KeyT]:
        """The public part and the answer key of a question as written."""

    def content_problems(self, public: PublicT, key: KeyT) -> list[ContentProblem]:
        """What the built question gives away or gets wrong; nothing by default."""
        return []

    # Translations

    @cached_property
    def translation_model(self) -> type[BaseModel]:
        """What `translations.<language>` may hold: the translatable fields, each optional
        here (a missing one is reported by `content check`), and `translated_from`."""
        fields: dict[str, Any] = {}
        for name in self.translated_fields + self.optional_translated_fields:
            annotation: Any = self.source.model_fields[name].annotation
            fields[name] = (annotation | None, None)
        fields[TRANSLATED_FROM] = (str | None, None)
        return create_model(f"{self.source.__name__}Translation", __base__=SourceModel, **fields)

    def english_fields(self, source: SourceT) -> dict[str, Any]:
        """The English of every translatable field (what a translation's fingerprint is
        made from)."""
        dumped = source.model_dump(mode="json")
        return {
            name: dumped[name] for name in self.translated_fields + self.optional_translated_fields
        }

    def translation_words(self, given: Mapping[str, Any]) -> BaseModel:
        """A `translations.<language>` block read by `translation_model` (raises
        ValidationError naming the field)."""
        return self.translation_model.model_validate(given)

    def count_problems(self, source: SourceT, words: BaseModel) -> list[ContentProblem]:
        """Translated lists (`words`, from `translation_words`; a field left out is None)
        whose length differs from the English's: each item translates the English item at
        its place (options in the same order, pairs, lines). Checked before anything else,
        so that the mismatch is what is reported."""
        problems = []
        for name in self.translated_fields + self.optional_translated_fields:
            english, other = getattr(source, name), getattr(words, name)
            if isinstance(english, list) and other is not None and len(other) != len(english):
                problems.append(
                    ContentProblem(
                        name,
                        f"has {len(other)} item(s) where the English has {len(english)}; "
                        "translate each, in the same order",
                    )
                )
        return problems

    def translation_problems(self, source: SourceT, translated: SourceT) -> list[ContentProblem]:
        """Where a translation (`translated`: the question as `translate` made it) does not
        fit the English beyond its lists' lengths; nothing by default. A kind adds its own
        rules (the same dependency ids...)."""
        return self.count_problems(source, translated)

    def translate(self, source: SourceT, words: BaseModel) -> SourceT:
        """The question in another language: the English with the translated fields in their
        place, validated as any question of this kind (raises ValidationError located in the
        question). Fields the translation leaves out stay English."""
        given = words.model_dump(exclude={TRANSLATED_FROM}, exclude_none=True)
        merged = source.model_dump(exclude={"translations"}) | given
        return self.source.model_validate(merged)

    def build_translation(self, source: SourceT, translated: SourceT) -> tuple[PublicT, KeyT]:
        """The public part and key in another language, which answers recorded in any
        language must fit: by default built from the translation as from the English (a kind
        whose ids come from its text keeps the English ids)."""
        return self.build(translated)

    def build_translation_stored(
        self, source: QuestionSource, translated: QuestionSource
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        if not isinstance(source, self.source) or not isinstance(translated, self.source):
            raise TypeError(f"{type(source).__name__} is not a {self.name} question")
        public, key = self.build_translation(source, translated)
        return public.model_dump(mode="json"), key.model_dump(mode="json")

    # Answering

    @abstractmethod
    def read_answer(self, public: PublicT, given: object) -> AnswerT:
        """The API's answer, checked for shape and normalised as it is recorded; raises
        InvalidAnswer saying what is wrong."""

    @abstractmethod
    def read_form(self, public: PublicT, form: FormData) -> AnswerT:
        """The answer posted by the partial's form (pages work without JavaScript)."""

    @abstractmethod
    def is_correct(self, key: KeyT, answer: AnswerT) -> bool: ...

    @abstractmethod
    def correct_answer(self, public: PublicT, key: KeyT) -> AnswerT:
        """The key as an answer (what the API returns as `correct_answer`)."""

    # In words

    @abstractmethod
    def describe(self, public: PublicT, answer: AnswerT) -> AnswerView:
        """An answer in words, as students and teachers read it; the correct answer is
        described by the same function. Must not raise for an answer that no longer fits
        the question (content edited since)."""

    def summarise(self, public: PublicT, answer: AnswerT) -> str:
        """A wrong answer on one line, as the teachers' insight groups and counts them."""
        return "; ".join(self.describe(public, answer).lines)

    # More for a wrong answer, where the kind can say it

    def feedback(self, public: PublicT, key: KeyT, answer: AnswerT) -> Feedback:
        """What a wrong answer is told besides the right answer; nothing by default."""
        return Feedback()

    def describe_wrong(self, public: PublicT, answer: AnswerT, parts: list[int | str]) -> list[str]:
        """The parts of a wrong answer that `feedback` names (`wrong_parts`), in words, as the
        student gave them (a blank's text, a row's pair); nothing by default. Must not raise
        for a part the answer no longer has."""
        return []

    def explain_choice(self, public: PublicT, key: KeyT, answer: AnswerT) -> str:
        """HTML: what the content says of a wrong answer's choices (shown before the right
        answer and its explanation); nothing by default."""
        return ""

    def output_checks(self, public: PublicT, key: KeyT) -> list[OutputCheck]:
        """Code the question shows whose output `content check --run` verifies; none by
        default."""
        return []

    # Stored JSON in, JSON out: what the rest of the app calls.

    def build_stored(self, source: QuestionSource) -> tuple[dict[str, Any], dict[str, Any]]:
        """`public` and `key` as the database stores them."""
        if not isinstance(source, self.source):
            raise TypeError(f"{type(source).__name__} is not a {self.name} question")
        public, key = self.build(source)
        return public.model_dump(mode="json"), key.model_dump(mode="json")

    def problems_stored(self, public: Stored, key: Stored) -> list[ContentProblem]:
        return self.content_problems(self.public_of(public), self.key_of(key))

    def public_of(self, public: Stored) -> PublicT:
        return self.public_model.model_validate(public)

    def key_of(self, key: Stored) -> KeyT:
        return self.key_model.model_validate(key)

    def recorded_answer(self, answer: object) -> AnswerT | None:
        """An answer from the attempts table, or None if it no longer has this kind's
        shape."""
        try:
            return self.answer_model.model_validate(answer)
        except ValidationError:
            return None

    def check(self, public: Stored, key: Stored, given: object) -> Checked:
        typed_public, typed_key = self.public_of(public), self.key_of(key)
        answer = self.read_answer(typed_public, given)
        return Checked(
            answer.model_dump(mode="json"),
            self.is_correct(typed_key, answer),
            self.correct_answer(typed_public, typed_key).model_dump(mode="json"),
        )

    def feedback_recorded(self, public: Stored, key: Stored, answer: object) -> Feedback:
        """A recorded wrong answer's feedback (`answer` as `check` recorded it); none if it
        no longer fits the question."""
        typed = self._recorded(public, answer)
        if typed is None:
            return Feedback()
        return self.feedback(typed[0], self.key_of(key), typed[1])

    def describe_wrong_recorded(
        self, public: Stored, answer: object, parts: list[int | str]
    ) -> list[str]:
        typed = self._recorded(public, answer)
        return [] if typed is None else self.describe_wrong(typed[0], typed[1], parts)

    def explain_choice_recorded(self, public: Stored, key: Stored, answer: object) -> str:
        typed = self._recorded(public, answer)
        return "" if typed is None else self.explain_choice(typed[0], self.key_of(key), typed[1])

    def correct_answer_stored(self, public: Stored, key: Stored) -> JsonValue:
        """The right answer in the API's JSON shape."""
        answer = self.correct_answer(self.public_of(public), self.key_of(key))
        return answer.model_dump(mode="json")

    def output_checks_stored(self, public: Stored, key: Stored) -> list[OutputCheck]:
        return self.output_checks(self.public_of(public), self.key_of(key))

    def answer_from_form(self, public: Stored, form: FormData) -> JsonValue:
        """The form's answer in the API's shape (raises InvalidAnswer)."""
        return self.read_form(self.public_of(public), form).model_dump(mode="json")

    def _recorded(self, public: Stored, answer: object) -> tuple[PublicT, AnswerT] | None:
        try:
            return self.public_of(public), self.answer_model.model_validate(answer)
        except ValidationError:
            return None

    def describe_recorded(self, public: Stored, answer: object) -> AnswerView:
        """A recorded answer in words; its JSON if it no longer fits the question."""
        typed = self._recorded(public, answer)
        if typed is None:
            return AnswerView([json.dumps(answer, ensure_ascii=False)], [])
        return self.describe(*typed)

    def summarise_recorded(self, public: Stored, answer: object) -> str:
        typed = self._recorded(public, answer)
        if typed is None:
            return json.dumps(answer, ensure_ascii=False)
        return self.summarise(*typed)

    def correct_in_words(self, public: Stored, key: Stored) -> list[str]:
        """The correct answer in words: the one way students and teachers are shown it."""
        typed_public = self.public_of(public)
        return self.describe(
            typed_public, self.correct_answer(typed_public, self.key_of(key))
        ).lines

    def out(self, *, id: str, prompt_html: str, public: Stored) -> QuestionOut:
        """The question as the catalog API shows it: its public part, never its key."""
        fields = self.public_of(public).model_dump()
        return self.out_model.model_validate(
            {"id": id, "kind": self.name, "prompt_html": prompt_html} | fields
        )
