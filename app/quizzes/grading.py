"""Checking one answer against a question's key. Pure functions: no database here."""

from __future__ import annotations

import re
from typing import Any


class InvalidAnswer(ValueError):
    """The answer does not have the shape this kind of question takes."""


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _choice(public: dict[str, Any], key: dict[str, Any], answer: Any) -> tuple[Any, bool, Any]:
    count = len(public["options"])
    correct = sorted(key["correct"])
    if public["multiple"]:
        if not isinstance(answer, list) or not all(_is_int(i) for i in answer):
            raise InvalidAnswer("This question takes a list of option indices.")
        chosen = sorted(answer)
        if len(set(chosen)) != len(chosen):
            raise InvalidAnswer("An option index is listed twice.")
        if any(not 0 <= i < count for i in chosen):
            raise InvalidAnswer(f"Option indices run from 0 to {count - 1}.")
        return chosen, chosen == correct, correct
    if not _is_int(answer):
        raise InvalidAnswer("This question takes one option index.")
    if not 0 <= answer < count:
        raise InvalidAnswer(f"Option indices run from 0 to {count - 1}.")
    return answer, [answer] == correct, correct[0]


def blank_matches(blank: dict[str, Any], given: str) -> bool:
    text = given.strip()
    flags = 0 if blank["case_sensitive"] else re.IGNORECASE
    for accepted in blank["accepted"]:
        if blank["regex"]:
            if re.fullmatch(accepted, text, flags):
                return True
        elif (text == accepted.strip()) or (
            flags and text.casefold() == accepted.strip().casefold()
        ):
            return True
    return False


def _fill_in(public: dict[str, Any], key: dict[str, Any], answer: Any) -> tuple[Any, bool, Any]:
    blanks = key["blanks"]
    if not isinstance(answer, list) or not all(isinstance(a, str) for a in answer):
        raise InvalidAnswer("This question takes a list of strings, one per blank.")
    if len(answer) != len(blanks):
        raise InvalidAnswer(f"This question has {len(blanks)} blank(s); give one string each.")
    if any(len(a) > 1000 for a in answer):
        raise InvalidAnswer("A blank's answer is at most 1000 characters.")
    correct = all(blank_matches(b, a) for b, a in zip(blanks, answer, strict=True))
    shown = [b.get("answer") or b["accepted"][0] for b in blanks]
    return [a.strip() for a in answer], correct, shown


def _matching(public: dict[str, Any], key: dict[str, Any], answer: Any) -> tuple[Any, bool, Any]:
    left = {item["id"] for item in public["left"]}
    right = {item["id"] for item in public["right"]}
    if not isinstance(answer, dict) or not all(isinstance(v, str) for v in answer.values()):
        raise InvalidAnswer("This question takes an object mapping each left id to a right id.")
    if set(answer) != left:
        raise InvalidAnswer("Match every left item exactly once, by its id.")
    if not set(answer.values()) <= right:
        raise InvalidAnswer("Every value must be one of the right items' ids.")
    pairs: dict[str, str] = key["pairs"]
    return dict(answer), answer == pairs, pairs


_CHECKERS = {"multiple_choice": _choice, "fill_in": _fill_in, "matching": _matching}


def check_answer(
    kind: str, public: dict[str, Any], key: dict[str, Any], answer: Any
) -> tuple[Any, bool, Any]:
    """(the answer as recorded, whether it is right, the correct answer in the same shape)."""
    return _CHECKERS[kind](public, key, answer)
