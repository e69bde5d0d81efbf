"""Pure unit tests of answer checking, for options the built-in content does not use."""

from __future__ import annotations

from typing import Any

import pytest

from app.content.loader import build_question
from app.quizzes.kinds import Checked, InvalidAnswer, kind_of
from app.quizzes.kinds.fill_in import Blank, FillIn
from app.quizzes.kinds.matching import Matching, Pair
from app.quizzes.kinds.multiple_choice import MultipleChoice


def blank(accepted: list[str], **options: Any) -> Blank:
    """A blank as the loader stores it (schema defaults included)."""
    return Blank.model_validate(Blank(accepted=accepted, **options).model_dump())


def blank_matches(b: Blank, given: str) -> bool:
    return b.matches(given)


def check_answer(kind: str, public: dict[str, Any], key: dict[str, Any], answer: Any) -> Checked:
    """(the answer as recorded, whether it is right, the correct answer in the same shape)."""
    return kind_of(kind).check(public, key, answer)


@pytest.mark.parametrize(
    ("options", "given", "expected"),
    [
        ({}, "to", True),
        ({}, "  to\t", True),
        ({}, "To", False),
        ({}, "t o", False),
        ({"case_sensitive": False}, "To", True),
        ({"case_sensitive": False}, " TO ", True),
        ({"case_sensitive": False}, "tó", False),
        ({"case_sensitive": False}, "tox", False),
    ],
)
def test_plain_blank(options: dict[str, Any], given: str, expected: bool) -> None:
    assert blank_matches(blank(["to"], **options), given) is expected


def test_plain_blank_case_insensitive_uses_casefold() -> None:
    assert blank_matches(blank(["straße"], case_sensitive=False), "STRASSE")
    assert not blank_matches(blank(["straße"]), "STRASSE")


def test_plain_blank_accepts_any_listed_answer_and_ignores_spaces_around_it() -> None:
    # The schema strips authored text, but a key stored by hand keeps its spaces.
    b = Blank.model_construct(accepted=["to", " cuda "], case_sensitive=True, regex=False)
    assert blank_matches(b, "cuda")
    assert blank_matches(b, "to")
    assert not blank_matches(b, "cpu")


def test_plain_blank_is_not_a_regex() -> None:
    assert not blank_matches(blank(["a.c"]), "abc")
    assert blank_matches(blank(["a.c"]), "a.c")


@pytest.mark.parametrize(
    ("options", "given", "expected"),
    [
        ({}, "cuda:0", True),
        ({}, " cuda:3 ", True),
        ({}, "CUDA:0", False),
        ({}, "cuda:0 and more", False),  # the whole answer must match
        ({}, "xcuda:0", False),
        ({}, "cuda:", False),
        ({"case_sensitive": False}, "CUDA:0", True),
        ({"case_sensitive": False}, "Cuda:12", True),
        ({"case_sensitive": False}, "cpu", False),
    ],
)
def test_regex_blank(options: dict[str, Any], given: str, expected: bool) -> None:
    assert blank_matches(blank([r"cuda:\d+"], regex=True, **options), given) is expected


def test_regex_blank_with_alternatives() -> None:
    b = blank(["196[,_ ]?608", "one hundred.*"], regex=True)
    assert blank_matches(b, "196,608")
    assert blank_matches(b, "196608")
    assert blank_matches(b, "one hundred and ninety-six thousand six hundred and eight")
    assert not blank_matches(b, "196..608")


def test_an_invalid_regex_is_refused_by_the_schema() -> None:
    with pytest.raises(ValueError, match="not a regex"):
        Blank(accepted=["cuda:("], regex=True)


def _fill_in(*blanks: Blank) -> tuple[dict[str, Any], dict[str, Any]]:
    question = FillIn(
        id="q",
        kind="fill_in",
        prompt="p",
        template=" ".join(["____"] * len(blanks)),
        blanks=list(blanks),
        explanation="e",
    )
    data = build_question(question)
    return data.public, data.key


def test_fill_in_shows_the_answer_field_for_regex_blanks() -> None:
    public, key = _fill_in(
        Blank(accepted=["to"]), Blank(accepted=[r"\d+"], regex=True, answer="42")
    )
    recorded, correct, shown = check_answer("fill_in", public, key, [" to ", "7"])
    assert (recorded, correct, shown) == (["to", "7"], True, ["to", "42"])


def test_fill_in_counts_blanks() -> None:
    public, key = _fill_in(Blank(accepted=["a"]), Blank(accepted=["b"]))
    assert public == {"template": "____ ____", "blanks": 2}
    for answer in (["a"], ["a", "b", "c"], [], "ab", [1, 2], None):
        with pytest.raises(InvalidAnswer):
            check_answer("fill_in", public, key, answer)


def _choice(correct: list[int], multiple: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    data = build_question(
        MultipleChoice(
            id="q",
            kind="multiple_choice",
            prompt="p",
            options=["a", "b", "c", "d"],
            correct=correct,
            multiple=multiple,
            explanation="e",
        )
    )
    return data.public, data.key


def test_single_choice() -> None:
    public, key = _choice([2], multiple=False)
    assert check_answer("multiple_choice", public, key, 2) == (2, True, 2)
    assert check_answer("multiple_choice", public, key, 1) == (1, False, 2)
    for bad in (True, False, 4, -1, "2", 2.0, [2], None):
        with pytest.raises(InvalidAnswer):
            check_answer("multiple_choice", public, key, bad)


def test_several_choices_are_order_free() -> None:
    public, key = _choice([3, 1], multiple=True)
    assert key == {"correct": [1, 3], "feedback_html": None}
    assert check_answer("multiple_choice", public, key, [3, 1]) == ([1, 3], True, [1, 3])
    assert check_answer("multiple_choice", public, key, [1]) == ([1], False, [1, 3])
    for bad in (1, [1, 1], [1, 4], [True], [1.0], ["1"], None, []):
        with pytest.raises(InvalidAnswer):
            check_answer("multiple_choice", public, key, bad)


def test_matching() -> None:
    data = build_question(
        Matching(
            id="q",
            kind="matching",
            prompt="p",
            pairs=[Pair(left="a", right="1"), Pair(left="b", right="2"), Pair(left="c", right="3")],
            explanation="e",
        )
    )
    left = [item["id"] for item in data.public["left"]]
    by_text = {item["text"]: item["id"] for item in data.public["right"]}
    right = {left[0]: by_text["1"], left[1]: by_text["2"], left[2]: by_text["3"]}
    assert check_answer("matching", data.public, data.key, right) == (right, True, right)
    wrong = right | {left[0]: by_text["2"], left[1]: by_text["1"]}
    assert check_answer("matching", data.public, data.key, wrong) == (wrong, False, right)
    for bad in (
        {left[0]: by_text["1"]},
        right | {"zzz": by_text["1"]},
        right | {left[0]: "r-unknown"},
        right | {left[0]: 1},
        list(right.items()),
        None,
    ):
        with pytest.raises(InvalidAnswer):
            check_answer("matching", data.public, data.key, bad)
