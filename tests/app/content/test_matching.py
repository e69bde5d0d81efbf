"""How a matching question is shown: nothing in it may pair the two sides."""

from __future__ import annotations

import itertools

from app.content.loader import QuestionData, build_question
from app.quizzes.kinds.matching import KIND, Matching, Pair
from app.quizzes.kinds.matching import written_in_shown_order as shown_as_written

LEFT = ["a", "b", "c", "d"]
RIGHT = ["one", "two", "three", "four"]


def _question(rights: tuple[str, ...]) -> Matching:
    return Matching(
        id="q-matching",
        kind="matching",
        prompt="p",
        pairs=[Pair(left=left, right=right) for left, right in zip(LEFT, rights, strict=True)],
        explanation="e",
    )


def written_in_shown_order(question: QuestionData) -> bool:
    return shown_as_written(KIND.public_of(question.public), KIND.key_of(question.key))


def test_the_shown_right_side_says_nothing_about_the_pairs() -> None:
    """Whatever the pairing, the page shows the same two columns: the order of the right
    side is a function of the right items alone (a shuffle of the authored order seeded
    with the public question id could be undone by anyone reading the code)."""
    shown = {
        tuple(
            (item["id"], item["text"]) for item in build_question(_question(rights)).public["right"]
        )
        for rights in itertools.permutations(RIGHT)
    }
    assert len(shown) == 1


def test_pairs_written_in_the_shown_order_are_detected() -> None:
    flagged = [
        rights
        for rights in itertools.permutations(RIGHT)
        if written_in_shown_order(build_question(_question(rights)))
    ]
    [rights] = flagged
    data = build_question(_question(rights))
    assert [item["text"] for item in data.public["right"]] == list(rights)


def test_ids_depend_on_the_question_and_the_text_only() -> None:
    first = build_question(_question(tuple(RIGHT))).public
    again = build_question(_question(tuple(reversed(RIGHT)))).public
    assert {i["text"]: i["id"] for i in first["right"]} == {
        i["text"]: i["id"] for i in again["right"]
    }
    assert [i["id"] for i in first["left"]] == [i["id"] for i in again["left"]]
    other = build_question(
        Matching(
            id="another-question",
            kind="matching",
            prompt="p",
            pairs=[Pair(left=left, right=right) for left, right in zip(LEFT, RIGHT, strict=True)],
            explanation="e",
        )
    ).public
    assert not {i["id"] for i in other["right"]} & {i["id"] for i in first["right"]}
