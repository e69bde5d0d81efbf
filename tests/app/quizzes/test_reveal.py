"""One rule for when a student is shown a question's answer (app/quizzes/reveal.py): a wrong
answer is told what is wrong and tries again; the right answer, the explanation and the
expected output wait until the answer is right, the question's tries (`tries`, default 2) are
used up, or the student asks (`POST /api/questions/{id}/reveal`, recorded). What a
multiple-choice question says of a chosen option (`option_feedback`) comes before."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from app.content import ContentError, load_catalog
from app.content.loader import build_question
from app.db import Database
from app.models import QuestionAttempt
from app.models.attempt import QuestionReveal
from app.quizzes.kinds import KINDS, Feedback
from app.quizzes.kinds.multiple_choice import MultipleChoice
from app.quizzes.reveal import DEFAULT_TRIES, Standing
from app.submissions.diff import aligned_rows
from tests.app.quizzes.conftest import add_question, write_one_lesson
from tests.helpers import make_student

LESSON = "tensor-basics"
MC = "gpu-support-same-device"  # the content's: one correct option, 3 of 4, default tries


def _written(**more: Any) -> dict[str, Any]:
    """A multiple-choice question as questions.yaml has it."""
    return {
        "id": "test-reveal",
        "kind": "multiple_choice",
        "prompt": "Where is `torch.ones(2)`?",
        "options": ["On the GPU", "On the CPU", "Nowhere yet"],
        "correct": [1],
        "explanation": "Tensors are made on the **CPU** unless told otherwise.",
    } | more


def _choice(**more: Any) -> MultipleChoice:
    return MultipleChoice.model_validate(_written(**more))


async def _answer(
    client: httpx.AsyncClient, headers: dict[str, str], question_id: str, answer: Any
) -> dict[str, Any]:
    response = await client.post(
        f"/api/questions/{question_id}/answers", json={"answer": answer}, headers=headers
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def _reveal(
    client: httpx.AsyncClient, headers: dict[str, str], question_id: str
) -> httpx.Response:
    return await client.post(f"/api/questions/{question_id}/reveal", headers=headers)


async def _count(db: Database, model: Any, user_id: int) -> int:
    async with db.sessionmaker() as session:
        return int(
            await session.scalar(
                select(func.count()).select_from(model).where(model.user_id == user_id)
            )
            or 0
        )


# The rule


def test_the_rule() -> None:
    fresh = Standing()
    assert (fresh.tries, fresh.revealed, fresh.tries_left) == (DEFAULT_TRIES, False, 2)
    once = fresh.answered(False)
    assert (once.revealed, once.tries_left) == (False, 1)
    assert once.answered(False).revealed and once.answered(False).tries_left == 0
    assert once.answered(True).revealed and once.answered(True).tries_left == 0
    assert Standing(wrong=1, asked=True).revealed
    assert Standing(tries=1).answered(False).revealed
    # Right once, revealed for good: a later wrong answer is shown the answer too.
    assert fresh.answered(True).answered(False).revealed


def test_only_what_gives_the_answer_away_waits() -> None:
    rows = aligned_rows("15", "16")
    feedback = Feedback(wrong_parts=[0], rows=rows)
    assert feedback.before_reveal() == Feedback(wrong_parts=[0])


# Tries, from the content file


@pytest.mark.parametrize("tries", [1, 3])
async def test_the_tries_of_a_question_come_from_its_content(
    client: httpx.AsyncClient, db: Database, tries: int
) -> None:
    question = await add_question(db, _choice(id=f"test-tries-{tries}", tries=tries), LESSON)
    assert question.tries == tries
    headers, user_id = await make_student(db)
    for left in range(tries - 1, 0, -1):
        hidden = await _answer(client, headers, question.id, 0)
        assert (hidden["correct_answer"], hidden["tries_left"], hidden["revealed"]) == (
            None,
            left,
            False,
        )
        assert hidden["explanation_html"] == ""
    shown = await _answer(client, headers, question.id, 2)
    assert (shown["correct_answer"], shown["tries_left"], shown["revealed"]) == (1, 0, True)
    assert "<strong>CPU</strong>" in shown["explanation_html"]
    assert shown["wrong_parts"] == [2]
    # Every attempt is kept, the ones after the reveal too.
    await _answer(client, headers, question.id, 1)
    assert await _count(db, QuestionAttempt, user_id) == tries + 1


def test_tries_default_to_two_and_are_bounded(tmp_path: Path) -> None:
    assert build_question(_choice()).tries == DEFAULT_TRIES == 2
    for tries, problem in ((0, "greater than or equal to 1"), (11, "less than or equal to 10")):
        root = tmp_path / str(tries)
        with pytest.raises(ContentError) as caught:
            load_catalog(write_one_lesson(root, [_written(tries=tries)]))
        [found] = [str(p) for p in caught.value.problems]
        assert "questions.0.multiple_choice.tries: " in found and problem in found


# Asking for the answer


async def test_asking_shows_the_answer_and_is_recorded_once(
    client: httpx.AsyncClient, db: Database
) -> None:
    headers, user_id = await make_student(db)
    first = await _answer(client, headers, MC, 0)
    assert (first["revealed"], first["tries_left"]) == (False, 1)

    response = await _reveal(client, headers, MC)
    assert response.status_code == 200
    shown = response.json()
    # The last answer's result, revealed: the same shape as an answer's.
    assert shown["correct"] is False
    assert (shown["correct_answer"], shown["tries_left"], shown["revealed"]) == (3, 0, True)
    assert shown["wrong_parts"] == [0]
    assert "same device" in shown["explanation_html"]
    assert (await _reveal(client, headers, MC)).json() == shown
    assert await _count(db, QuestionReveal, user_id) == 1
    # Asking is no attempt; the answers after it are told everything.
    assert await _count(db, QuestionAttempt, user_id) == 1
    later = await _answer(client, headers, MC, 1)
    assert (later["correct_answer"], later["revealed"]) == (3, True)
    assert await _count(db, QuestionAttempt, user_id) == 2


@pytest.mark.parametrize(
    "answers",
    [pytest.param([3], id="after-a-right-answer"), pytest.param([0, 1], id="tries-used-up")],
)
async def test_asking_once_the_answer_is_shown_records_nothing(
    client: httpx.AsyncClient, db: Database, answers: list[int]
) -> None:
    headers, user_id = await make_student(db)
    for answer in answers:
        await _answer(client, headers, MC, answer)
    response = await _reveal(client, headers, MC)
    assert response.status_code == 200
    assert response.json()["correct_answer"] == 3
    assert await _count(db, QuestionReveal, user_id) == 0


async def test_asking_before_answering_is_409(client: httpx.AsyncClient, db: Database) -> None:
    headers, user_id = await make_student(db)
    response = await _reveal(client, headers, MC)
    assert response.status_code == 409
    assert response.json() == {"detail": "Answer the question before asking for its answer."}
    assert await _count(db, QuestionReveal, user_id) == 0


async def test_asking_needs_a_user_and_a_question(client: httpx.AsyncClient, db: Database) -> None:
    assert (await _reveal(client, {}, MC)).status_code == 401
    headers, _ = await make_student(db)
    assert (await _reveal(client, headers, "no-such-question")).status_code == 404


async def test_reveals_are_per_student(client: httpx.AsyncClient, db: Database) -> None:
    first, _ = await make_student(db)
    second, _ = await make_student(db)
    await _answer(client, first, MC, 0)
    await _answer(client, second, MC, 0)
    assert (await _reveal(client, first, MC)).status_code == 200
    assert (await _answer(client, second, MC, 0))["correct_answer"] == 3  # its own second try
    third, _ = await make_student(db)
    assert (await _answer(client, third, MC, 0))["correct_answer"] is None


# What a chosen option is told


async def test_a_chosen_options_feedback_comes_before_the_explanation(
    client: httpx.AsyncClient, db: Database
) -> None:
    spec = _choice(
        id="test-option-feedback",
        option_feedback=["Only with `device=cuda`.", "", "It exists once made."],
    )
    question = await add_question(db, spec, LESSON)
    headers, _ = await make_student(db)
    first = await _answer(client, headers, question.id, 0)
    assert first["explanation_html"] == "Only with <code>device=cuda</code>."
    assert first["correct_answer"] is None
    second = await _answer(client, headers, question.id, 2)
    assert second["explanation_html"] == (
        "It exists once made. Tensors are made on the <strong>CPU</strong> unless told otherwise."
    )
    right = await _answer(client, headers, question.id, 1)
    assert right["explanation_html"] == (
        "Tensors are made on the <strong>CPU</strong> unless told otherwise."
    )


async def test_several_choices_are_told_of_the_wrong_ones_only(
    client: httpx.AsyncClient, db: Database
) -> None:
    spec = _choice(
        id="test-option-feedback-several",
        multiple=True,
        correct=[1, 2],
        option_feedback=["Not without a device.", "Right.", "Right too."],
    )
    question = await add_question(db, spec, LESSON)
    headers, _ = await make_student(db)
    told = await _answer(client, headers, question.id, [0, 1])
    assert (told["explanation_html"], told["wrong_parts"]) == ("Not without a device.", [0])
    # Options left out are not named; at this second try the explanation is shown.
    missing = await _answer(client, headers, question.id, [1])
    assert (missing["explanation_html"], missing["wrong_parts"]) == (
        "Tensors are made on the <strong>CPU</strong> unless told otherwise.",
        [],
    )


def test_option_feedback_has_one_entry_per_option(tmp_path: Path) -> None:
    with pytest.raises(ContentError) as caught:
        load_catalog(write_one_lesson(tmp_path, [_written(option_feedback=["a", "b"])]))
    [found] = [str(p) for p in caught.value.problems]
    assert "option_feedback has 2 entries for 3 options" in found


def test_option_feedback_is_translated_with_the_question(tmp_path: Path) -> None:
    written = _written(option_feedback=["Yok.", "", "Hayır."])
    turkish = {
        "prompt": "Nerede?",
        "options": ["GPU'da", "CPU'da", "Hiçbir yerde"],
        "explanation": "CPU'da.",
    }
    with pytest.raises(ContentError) as caught:
        load_catalog(
            write_one_lesson(tmp_path / "missing", [written | {"translations": {"tr": turkish}}])
        )
    [found] = [str(p) for p in caught.value.problems]
    assert found.endswith("questions.0.translations.tr.option_feedback: missing: translate it")

    given = turkish | {"option_feedback": ["GPU'da değil.", "", "Var."]}
    catalog = load_catalog(
        write_one_lesson(tmp_path / "given", [written | {"translations": {"tr": given}}])
    )
    [question] = catalog.lessons[0].questions
    assert question.translations["tr"]["key"]["feedback_html"] == ["GPU'da değil.", "", "Var."]


def test_questions_without_option_feedback_keep_their_fingerprints() -> None:
    """Adding the field changed no translation's fingerprint: it is left out of the English
    a fingerprint is made of unless it is written."""
    kind = KINDS["multiple_choice"]
    assert "option_feedback" not in kind.english_fields(_choice())
    assert "option_feedback" in kind.english_fields(_choice(option_feedback=["a", "", "c"]))
