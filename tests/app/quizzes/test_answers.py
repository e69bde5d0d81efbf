"""`POST /api/questions/{id}/answers` for every kind of question: right, wrong, malformed.
A wrong answer is told what is wrong, not the right answer, until the question is revealed
(tests/app/quizzes/test_reveal.py has the rule itself)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import yaml
from sqlalchemy import func, select

from app.config import REPO_ROOT
from app.db import Database
from app.models import Question, QuestionAttempt
from tests.helpers import make_student

MC = "gpu-support-same-device"  # one correct option: 3 of 4
FILL = "gpu-support-move-to"  # one blank: "to", case-sensitive
FILL_TWO = "tensor-basics-count-up"  # two blanks: "arange", "3"
FILL_REGEX = "tensors-on-the-gpu-footprint-bytes"  # regex blanks, shown as 98304 / 393216
MATCH = "gpu-support-match-terms"
MATCH_LESSON = "gpu-support"
RESULT_KEYS = {"correct", "explanation_html", "correct_answer", "tries_left", "revealed"}


async def _answer(
    client: httpx.AsyncClient, headers: dict[str, str], question_id: str, answer: Any
) -> httpx.Response:
    return await client.post(
        f"/api/questions/{question_id}/answers", json={"answer": answer}, headers=headers
    )


async def _attempts(db: Database, user_id: int) -> list[QuestionAttempt]:
    async with db.sessionmaker() as session:
        return list(
            (
                await session.scalars(
                    select(QuestionAttempt)
                    .where(QuestionAttempt.user_id == user_id)
                    .order_by(QuestionAttempt.id)
                )
            ).all()
        )


def _right(correct_answer: Any, explanation_html: str) -> dict[str, Any]:
    """A right answer's result: everything shown."""
    return {
        "correct": True,
        "explanation_html": explanation_html,
        "correct_answer": correct_answer,
        "tries_left": 0,
        "revealed": True,
    }


def _hidden(wrong_parts: list[Any], tries_left: int = 1) -> dict[str, Any]:
    """A wrong answer's result while the right answer is not shown."""
    return {
        "correct": False,
        "explanation_html": "",
        "correct_answer": None,
        "tries_left": tries_left,
        "revealed": False,
        "wrong_parts": wrong_parts,
    }


async def _explanation(db: Database, question_id: str) -> str:
    async with db.sessionmaker() as session:
        question = await session.get_one(Question, question_id)
        return question.explanation_html


async def _right_matching(client: httpx.AsyncClient) -> tuple[dict[str, str], dict[str, str]]:
    """(the right answer, a wrong one) for MATCH, worked out from the content file's texts."""
    lesson = (await client.get(f"/api/lessons/{MATCH_LESSON}")).json()
    [question] = [q for q in lesson["questions"] if q["id"] == MATCH]
    path = REPO_ROOT / "exercises" / "lessons" / MATCH_LESSON / "questions.yaml"
    written = next(q for q in yaml.safe_load(path.read_text())["questions"] if q["id"] == MATCH)
    right_of = {p["left"]: p["right"] for p in written["pairs"]}
    right_id = {item["text"]: item["id"] for item in question["right"]}
    right = {item["id"]: right_id[right_of[item["text"]]] for item in question["left"]}
    left_ids = [item["id"] for item in question["left"]]
    wrong = dict(right)
    wrong[left_ids[0]], wrong[left_ids[1]] = right[left_ids[1]], right[left_ids[0]]
    return right, wrong


# Multiple choice, one correct option ---------------------------------------------------


async def test_multiple_choice_right(client: httpx.AsyncClient, db: Database) -> None:
    headers, _ = await make_student(db)
    response = await _answer(client, headers, MC, 3)
    assert response.status_code == 200
    body = response.json()
    assert set(body) == RESULT_KEYS
    assert body == _right(3, await _explanation(db, MC))
    assert "same device" in body["explanation_html"]


@pytest.mark.parametrize("answer", [0, 1, 2])
async def test_multiple_choice_wrong_is_told_the_answer_at_the_second_try(
    client: httpx.AsyncClient, db: Database, answer: int
) -> None:
    headers, user_id = await make_student(db)
    response = await _answer(client, headers, MC, answer)
    assert response.status_code == 200
    assert response.json() == _hidden([answer])
    again = await _answer(client, headers, MC, (answer + 1) % 3)
    assert again.json() == {
        "correct": False,
        "explanation_html": await _explanation(db, MC),
        "correct_answer": 3,
        "tries_left": 0,
        "revealed": True,
        "wrong_parts": [(answer + 1) % 3],
    }
    first, second = await _attempts(db, user_id)
    assert (first.question_id, first.answer, first.correct) == (MC, answer, False)
    assert (second.answer, second.correct) == ((answer + 1) % 3, False)


@pytest.mark.parametrize(
    "answer",
    [
        pytest.param(4, id="past-the-last-option"),
        pytest.param(-1, id="negative"),
        pytest.param(10**12, id="huge"),
        pytest.param(True, id="true-is-not-1"),
        pytest.param(False, id="false-is-not-0"),
        pytest.param("3", id="string"),
        pytest.param(3.0, id="float"),
        pytest.param(3.5, id="fraction"),
        pytest.param([3], id="list-for-a-single-choice"),
        pytest.param(None, id="null"),
        pytest.param({"index": 3}, id="object"),
    ],
)
async def test_multiple_choice_malformed_is_422_and_not_recorded(
    client: httpx.AsyncClient, db: Database, answer: Any
) -> None:
    headers, user_id = await make_student(db)
    response = await _answer(client, headers, MC, answer)
    assert response.status_code == 422, response.text
    assert "detail" in response.json()
    assert await _attempts(db, user_id) == []


# Multiple choice, several correct options ----------------------------------------------


async def test_several_correct_right_in_any_order(
    client: httpx.AsyncClient, db: Database, several_correct: str
) -> None:
    headers, user_id = await make_student(db)
    lesson = (await client.get("/api/lessons/tensor-basics")).json()
    [shown] = [q for q in lesson["questions"] if q["id"] == several_correct]
    assert shown["multiple"] is True
    for answer in ([0, 2], [2, 0]):
        response = await _answer(client, headers, several_correct, answer)
        assert response.status_code == 200
        assert response.json() == _right([0, 2], await _explanation(db, several_correct))
    assert [a.correct for a in await _attempts(db, user_id)] == [True, True]


@pytest.mark.parametrize(
    ("answer", "wrong_parts"),
    [([0], []), ([2], []), ([0, 1, 2], [1]), ([1, 3], [1, 3]), ([0, 1, 2, 3], [1, 3])],
)
async def test_several_correct_wrong_names_the_options_chosen_wrongly(
    client: httpx.AsyncClient,
    db: Database,
    several_correct: str,
    answer: list[int],
    wrong_parts: list[int],
) -> None:
    """Only the options chosen that are wrong: those left out are not named (that would
    tell the answer)."""
    headers, _ = await make_student(db)
    response = await _answer(client, headers, several_correct, answer)
    assert response.status_code == 200
    assert response.json() == _hidden(wrong_parts)
    again = await _answer(client, headers, several_correct, answer)
    assert again.json()["correct_answer"] == [0, 2]


@pytest.mark.parametrize(
    "answer",
    [
        pytest.param(0, id="int-for-a-multiple-choice"),
        pytest.param([0, 4], id="out-of-range"),
        pytest.param([-1], id="negative"),
        pytest.param([0, 0, 2], id="listed-twice"),
        pytest.param([True, 2], id="bool-in-list"),
        pytest.param(["0", "2"], id="strings"),
        pytest.param([0.0, 2.0], id="floats"),
        pytest.param([[0], [2]], id="nested"),
        pytest.param(None, id="null"),
        pytest.param([], id="nothing-chosen"),
    ],
)
async def test_several_correct_malformed_is_422(
    client: httpx.AsyncClient, db: Database, several_correct: str, answer: Any
) -> None:
    headers, user_id = await make_student(db)
    response = await _answer(client, headers, several_correct, answer)
    assert response.status_code == 422, response.text
    assert await _attempts(db, user_id) == []


# Fill in the blank ---------------------------------------------------------------------


@pytest.mark.parametrize("given", ["to", " to", "to  ", "\tto\n"])
async def test_fill_in_right_with_surrounding_spaces(
    client: httpx.AsyncClient, db: Database, given: str
) -> None:
    headers, user_id = await make_student(db)
    response = await _answer(client, headers, FILL, [given])
    assert response.status_code == 200
    assert response.json() == _right(["to"], await _explanation(db, FILL))
    [attempt] = await _attempts(db, user_id)
    assert attempt.answer == ["to"] and attempt.correct is True


@pytest.mark.parametrize("given", ["cuda", "To", "TO", "t o", ".to", "to()"])
async def test_fill_in_wrong_names_the_blank_then_shows_the_answer(
    client: httpx.AsyncClient, db: Database, given: str
) -> None:
    headers, _ = await make_student(db)
    response = await _answer(client, headers, FILL, [given])
    assert response.status_code == 200
    assert response.json() == _hidden([0])
    again = await _answer(client, headers, FILL, [given])
    assert (again.json()["correct_answer"], again.json()["revealed"]) == (["to"], True)


async def test_fill_in_two_blanks(client: httpx.AsyncClient, db: Database) -> None:
    headers, _ = await make_student(db)
    half = await _answer(client, headers, FILL_TWO, ["arange", "2"])
    assert half.json() == _hidden([1])
    swapped = await _answer(client, headers, FILL_TWO, ["3", "arange"])
    assert swapped.json()["wrong_parts"] == [0, 1]
    assert swapped.json()["correct_answer"] == ["arange", "3"]
    right = await _answer(client, headers, FILL_TWO, ["arange", " 3 "])
    assert right.json()["correct"] is True
    assert right.json()["correct_answer"] == ["arange", "3"]


@pytest.mark.parametrize(
    ("question", "answer", "where", "blank"),
    [
        pytest.param(FILL, [""], 0, 1, id="empty"),
        pytest.param(FILL, ["  \t"], 0, 1, id="spaces"),
        pytest.param(FILL_TWO, ["arange", ""], 1, 2, id="second-of-two"),
    ],
)
async def test_an_empty_blank_is_refused_naming_it_and_not_recorded(
    client: httpx.AsyncClient,
    db: Database,
    question: str,
    answer: list[str],
    where: int,
    blank: int,
) -> None:
    """An empty blank is an answer not given yet, not a wrong one: 422 with the blank's
    place, as a validation error names a field; nothing recorded, no try used."""
    headers, user_id = await make_student(db)
    response = await _answer(client, headers, question, answer)
    assert response.status_code == 422, response.text
    [error] = response.json()["detail"]
    assert error["loc"] == ["body", "answer", where]
    assert error["msg"] == f"Answer every part first: blank {blank} is empty."
    assert error["type"] == "missing"
    assert await _attempts(db, user_id) == []


@pytest.mark.parametrize(
    ("given", "correct"),
    [
        (["61440", "4", "245760"], True),
        (["61,440", "4", "245,760"], True),
        (["61 440", " 4 ", "245_760"], True),
        (["61440", "4", "245760 bytes"], False),  # regex blanks match the whole answer
        (["161440", "4", "245760"], False),
        (["61.440", "4", "245.760"], False),
        (["61440", "8", "245760"], False),
    ],
)
async def test_fill_in_regex_blanks(
    client: httpx.AsyncClient, db: Database, given: list[str], correct: bool
) -> None:
    headers, _ = await make_student(db)
    response = await _answer(client, headers, FILL_REGEX, given)
    assert response.status_code == 200
    assert response.json()["correct"] is correct
    if not correct:
        response = await _answer(client, headers, FILL_REGEX, given)
    # A regex blank shows its `answer`, never the pattern.
    assert response.json()["correct_answer"] == ["61440", "4", "245760"]


@pytest.mark.parametrize(
    ("given", "correct"),
    [
        (["cuda", "cuda:0"], True),
        (["CUDA", "CUDA:1"], True),
        ([" Gpu ", "Cuda:7"], True),
        (["cpu", "cuda:0"], False),
        (["cuda", "cuda"], False),
        (["cuda", "cuda:10"], False),
    ],
)
async def test_fill_in_case_insensitive_blanks(
    client: httpx.AsyncClient,
    db: Database,
    case_insensitive_regex: str,
    given: list[str],
    correct: bool,
) -> None:
    headers, _ = await make_student(db)
    response = await _answer(client, headers, case_insensitive_regex, given)
    assert response.status_code == 200
    assert response.json()["correct"] is correct
    if not correct:
        response = await _answer(client, headers, case_insensitive_regex, given)
    assert response.json()["correct_answer"] == ["CUDA", "cuda:0"]


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        pytest.param(FILL, "to", id="string-not-list"),
        pytest.param(FILL, [], id="no-blanks"),
        pytest.param(FILL, ["to", "to"], id="too-many-blanks"),
        pytest.param(FILL_TWO, ["arange"], id="too-few-blanks"),
        pytest.param(FILL, [1], id="number-in-blank"),
        pytest.param(FILL, [None], id="null-in-blank"),
        pytest.param(FILL, [["to"]], id="nested-list"),
        pytest.param(FILL, {"0": "to"}, id="object"),
        pytest.param(FILL, None, id="null"),
        pytest.param(FILL, ["x" * 1001], id="overlong-blank"),
    ],
)
async def test_fill_in_malformed_is_422(
    client: httpx.AsyncClient, db: Database, question: Any, answer: Any
) -> None:
    headers, user_id = await make_student(db)
    response = await _answer(client, headers, question, answer)
    assert response.status_code == 422, response.text
    assert await _attempts(db, user_id) == []


# Matching ------------------------------------------------------------------------------


async def test_matching_right(client: httpx.AsyncClient, db: Database) -> None:
    headers, user_id = await make_student(db)
    right, _ = await _right_matching(client)
    response = await _answer(client, headers, MATCH, right)
    assert response.status_code == 200
    assert response.json() == _right(right, await _explanation(db, MATCH))
    [attempt] = await _attempts(db, user_id)
    assert attempt.answer == right and attempt.correct is True


async def test_matching_wrong_names_the_wrong_rows_then_gets_the_correct_pairs(
    client: httpx.AsyncClient, db: Database
) -> None:
    headers, _ = await make_student(db)
    right, wrong = await _right_matching(client)
    swapped = [left for left in right if wrong[left] != right[left]]
    assert len(swapped) == 2
    response = await _answer(client, headers, MATCH, wrong)
    assert response.status_code == 200
    assert response.json() == _hidden(swapped)
    again = await _answer(client, headers, MATCH, wrong)
    assert again.json()["correct_answer"] == right
    assert again.json()["wrong_parts"] == swapped


async def test_matching_a_row_left_empty_is_refused_naming_it(
    client: httpx.AsyncClient, db: Database
) -> None:
    headers, user_id = await make_student(db)
    right, _ = await _right_matching(client)
    first = next(iter(right))
    response = await _answer(client, headers, MATCH, right | {first: ""})
    assert response.status_code == 422
    [error] = response.json()["detail"]
    assert error["loc"] == ["body", "answer", first]
    assert error["msg"] == "Answer every part first: choose a match for torch.cuda.is_available()."
    assert await _attempts(db, user_id) == []


async def test_matching_everything_to_one_item_is_wrong_not_malformed(
    client: httpx.AsyncClient, db: Database
) -> None:
    headers, _ = await make_student(db)
    right, _ = await _right_matching(client)
    first = next(iter(right.values()))
    response = await _answer(client, headers, MATCH, dict.fromkeys(right, first))
    assert response.status_code == 200
    assert response.json()["correct"] is False


@pytest.mark.parametrize(
    "break_it",
    [
        pytest.param(lambda a: dict(list(a.items())[1:]), id="missing-a-left-id"),
        pytest.param(lambda a: a | {next(iter(a)): "r-unknown"}, id="unknown-right-id"),
        pytest.param(lambda a: a | {"l-unknown": next(iter(a.values()))}, id="unknown-left-id"),
        pytest.param(lambda a: {k: 1 for k in a}, id="numbers-for-ids"),
        pytest.param(lambda a: a | {next(iter(a)): None}, id="null-right-id"),
        pytest.param(lambda a: {v: k for k, v in a.items()}, id="sides-swapped"),
        pytest.param(lambda a: list(a.items()), id="list-of-pairs"),
        pytest.param(lambda a: list(a.values()), id="list-of-right-ids"),
        pytest.param(lambda a: {}, id="empty-object"),
        pytest.param(lambda a: None, id="null"),
    ],
)
async def test_matching_malformed_is_422(
    client: httpx.AsyncClient, db: Database, break_it: Any
) -> None:
    headers, user_id = await make_student(db)
    right, _ = await _right_matching(client)
    response = await _answer(client, headers, MATCH, break_it(dict(right)))
    assert response.status_code == 422, response.text
    assert await _attempts(db, user_id) == []


# Envelope, lookup and auth -------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        pytest.param({"answer": 3, "extra": True}, id="extra-field"),
        pytest.param({"answers": 3}, id="misspelt-field"),
        pytest.param({}, id="missing-answer"),
        pytest.param([3], id="not-an-object"),
        pytest.param(3, id="bare-answer"),
    ],
)
async def test_malformed_envelope_is_422(
    client: httpx.AsyncClient, db: Database, body: dict[str, Any] | list[int] | int
) -> None:
    headers, user_id = await make_student(db)
    response = await client.post(f"/api/questions/{MC}/answers", json=body, headers=headers)
    assert response.status_code == 422, response.text
    assert await _attempts(db, user_id) == []


async def test_body_that_is_not_json_is_422(client: httpx.AsyncClient, db: Database) -> None:
    headers, _ = await make_student(db)
    response = await client.post(
        f"/api/questions/{MC}/answers",
        content=b"{answer: 3",
        headers=headers | {"Content-Type": "application/json"},
    )
    assert response.status_code == 422


@pytest.mark.parametrize("question_id", ["no-such-question", "gpu-support", "GPU-SUPPORT-MOVE-TO"])
async def test_unknown_question_is_404(
    client: httpx.AsyncClient, db: Database, question_id: str
) -> None:
    headers, _ = await make_student(db)
    response = await _answer(client, headers, question_id, 0)
    assert response.status_code == 404
    assert isinstance(response.json()["detail"], str)


@pytest.mark.parametrize(
    "headers",
    [{}, {"Authorization": "Bearer not-a-token"}],
    ids=["no-credentials", "bogus-token"],
)
async def test_answering_needs_a_user(
    client: httpx.AsyncClient, db: Database, headers: dict[str, Any]
) -> None:
    async with db.sessionmaker() as session:
        before = await session.scalar(select(func.count()).select_from(QuestionAttempt))
    response = await _answer(client, headers, MC, 3)
    assert response.status_code == 401
    async with db.sessionmaker() as session:
        assert await session.scalar(select(func.count()).select_from(QuestionAttempt)) == before


async def test_every_attempt_is_recorded(client: httpx.AsyncClient, db: Database) -> None:
    headers, user_id = await make_student(db)
    right, wrong = await _right_matching(client)
    sequence = [
        (MC, 0, False),
        (MC, 3, True),
        (MC, 3, True),
        (FILL, ["cuda"], False),
        (FILL, ["to"], True),
        (MATCH, wrong, False),
        (MATCH, right, True),
    ]
    for question_id, answer, _ in sequence:
        assert (await _answer(client, headers, question_id, answer)).status_code == 200
    assert (await _answer(client, headers, MC, 7)).status_code == 422
    attempts = await _attempts(db, user_id)
    assert [(a.question_id, a.answer, a.correct) for a in attempts] == sequence
    assert all(a.created_at.tzinfo is not None for a in attempts)


async def test_attempts_are_per_user(client: httpx.AsyncClient, db: Database) -> None:
    first, first_id = await make_student(db)
    second, second_id = await make_student(db)
    await _answer(client, first, MC, 3)
    await _answer(client, second, MC, 0)
    await _answer(client, second, MC, 1)
    assert [a.correct for a in await _attempts(db, first_id)] == [True]
    assert [a.correct for a in await _attempts(db, second_id)] == [False, False]
