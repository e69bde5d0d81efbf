"""Matching: pair each left item (shown as code) with one of the right items."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field, RootModel, field_validator
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
    SourceModel,
    stable_digest,
)

UNKNOWN_RIGHT = N_("Every value must be one of the right items' ids.")
MATCH_EVERY_LEFT = N_("Match every left item exactly once, by its id.")
EMPTY_ROW = N_("Answer every part first: choose a match for %(item)s.")


class Pair(SourceModel):
    left: str = Field(min_length=1)
    right: str = Field(min_length=1)


class Matching(QuestionSource):
    kind: Literal["matching"]
    pairs: list[Pair] = Field(min_length=2)

    @field_validator("pairs")
    @classmethod
    def _distinct_sides(cls, pairs: list[Pair]) -> list[Pair]:
        for side in ("left", "right"):
            texts = [getattr(p, side) for p in pairs]
            if len(set(texts)) != len(texts):
                raise ValueError(f"every {side} item must be distinct")
        return pairs


class MatchItem(BaseModel):
    id: str
    text: str


class MatchingPublic(BaseModel):
    left: list[MatchItem]
    right: list[MatchItem]


class MatchingKey(BaseModel):
    pairs: dict[str, str]  # left id -> right id


class Matches(RootModel[dict[str, str]]):
    """Each left item's id -> the id of the right item chosen for it."""


class MatchingOut(QuestionOut):
    kind: Literal["matching"] = "matching"
    left: list[MatchItem]
    right: list[MatchItem]


def _item_id(question_id: str, side: str, text: str) -> str:
    """A function of the question and the text only, so that edits elsewhere keep it."""
    return side + stable_digest(question_id, side, text)[:8]


def written_in_shown_order(public: MatchingPublic, key: MatchingKey) -> bool:
    """Whether the right side would be shown in the order written (so that each row's answer
    would be the item beside it)."""
    shown = [item.id for item in public.right]
    return shown == [key.pairs[item.id] for item in public.left]


class MatchingKind(QuestionKind[Matching, MatchingPublic, MatchingKey, Matches]):
    name = "matching"
    source = Matching
    public_model = MatchingPublic
    key_model = MatchingKey
    answer_model = Matches
    out_model = MatchingOut
    translated_fields = ("prompt", "explanation", "pairs")
    example: ClassVar[dict[str, Any]] = {
        "id": "example-matching",
        "kind": "matching",
        "prompt": "Match each call to what it does.",
        "pairs": [
            {"left": ".cuda()", "right": "Move to the GPU"},
            {"left": ".cpu()", "right": "Bring back to the CPU"},
        ],
        "explanation": "Both return a copy on the other device.",
    }

    def build(self, source: Matching) -> tuple[MatchingPublic, MatchingKey]:
        left = [MatchItem(id=_item_id(source.id, "l", p.left), text=p.left) for p in source.pairs]
        right = [
            MatchItem(id=_item_id(source.id, "r", p.right), text=p.right) for p in source.pairs
        ]
        pairs = {lhs.id: rhs.id for lhs, rhs in zip(left, right, strict=True)}
        # Ordered by id: stable between visits, and a function of the right items alone, so
        # the order says nothing about the pairs. (A shuffle of the authored order seeded with
        # the public question id could be undone by anyone who reads this code.) Pairs that
        # happen to be written in this order are refused by `content_problems`.
        public = MatchingPublic(left=left, right=sorted(right, key=lambda item: item.id))
        return public, MatchingKey(pairs=pairs)

    def build_translation(
        self, source: Matching, translated: Matching
    ) -> tuple[MatchingPublic, MatchingKey]:
        """The English items' ids (answers are recorded by id, whatever the language) and
        order, with the translated texts: pair i of the translation translates pair i."""
        public, key = self.build(source)
        texts = {
            _item_id(source.id, letter, getattr(english, side)): getattr(words, side)
            for english, words in zip(source.pairs, translated.pairs, strict=True)
            for letter, side in (("l", "left"), ("r", "right"))
        }

        def translated_items(items: list[MatchItem]) -> list[MatchItem]:
            return [MatchItem(id=item.id, text=texts[item.id]) for item in items]

        return MatchingPublic(
            left=translated_items(public.left), right=translated_items(public.right)
        ), key

    def content_problems(self, public: MatchingPublic, key: MatchingKey) -> list[ContentProblem]:
        if written_in_shown_order(public, key):
            return [
                ContentProblem(
                    "pairs",
                    "the right items would be shown in the order written, which gives the "
                    "answers away; write the pairs in another order",
                )
            ]
        return []

    def read_answer(self, public: MatchingPublic, given: object) -> Matches:
        if not isinstance(given, dict) or not all(isinstance(v, str) for v in given.values()):
            raise InvalidAnswer("This question takes an object mapping each left id to a right id.")
        if set(given) != {item.id for item in public.left}:
            raise InvalidAnswer(MATCH_EVERY_LEFT)
        for item in public.left:
            if not given[item.id]:
                raise EmptyPart(EMPTY_ROW, item.id, {"item": item.text})
        if not set(given.values()) <= {item.id for item in public.right}:
            raise InvalidAnswer(UNKNOWN_RIGHT)
        return Matches(dict(given))

    def read_form(self, public: MatchingPublic, form: FormData) -> Matches:
        return self.read_answer(
            public, {item.id: form.get(f"match-{item.id}") or "" for item in public.left}
        )

    def is_correct(self, key: MatchingKey, answer: Matches) -> bool:
        return answer.root == key.pairs

    def correct_answer(self, public: MatchingPublic, key: MatchingKey) -> Matches:
        return Matches(dict(key.pairs))

    def feedback(self, public: MatchingPublic, key: MatchingKey, answer: Matches) -> Feedback:
        """The rows matched wrongly, by their left item's id, in the order shown."""
        return Feedback(
            wrong_parts=[
                item.id
                for item in public.left
                if answer.root.get(item.id) != key.pairs.get(item.id)
            ]
        )

    def describe_wrong(
        self, public: MatchingPublic, answer: Matches, parts: list[int | str]
    ) -> list[str]:
        """Each wrong row as the student matched it: "left → right"."""
        return [
            _pair(public, str(part), answer.root[part])
            for part in parts
            if isinstance(part, str) and part in answer.root
        ]

    def describe(self, public: MatchingPublic, answer: Matches) -> AnswerView:
        """One "left → right" line per pair."""
        return AnswerView([_pair(public, lid, rid) for lid, rid in answer.root.items()], [])


def _pair(public: MatchingPublic, left_id: str, right_id: str) -> str:
    left = next((item.text for item in public.left if item.id == left_id), left_id)
    right = next((item.text for item in public.right if item.id == right_id), right_id)
    return f"{left} → {right}"


KIND = MatchingKind()
