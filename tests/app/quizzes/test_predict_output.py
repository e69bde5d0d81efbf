"""Predict-the-output questions: the answer compared with the expected output as a code
exercise's output is, a wrong one shown beside it line by line, the expected output never
shown before an answer, and the snippet's real output checked by `content check --run`."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.cli import main
from app.content import ContentError, load_catalog
from app.db import Database
from app.quizzes.kinds import KINDS
from app.quizzes.kinds.predict_output import PredictOutput
from tests.app.content.course import THIRD_LESSON, write_course
from tests.app.quizzes.conftest import add_question, question_article, write_one_lesson
from tests.helpers import browser_signup, csrf_from, make_student

KIND = KINDS["predict_output"]
LESSON = "tensor-basics"
CODE = "import torch\nx = torch.arange(6).reshape(2, 3)\nprint(x.shape)\nprint(x.sum().item())\n"
EXPECTED = "torch.Size([2, 3])\n15\n"


def _spec(**more: Any) -> PredictOutput:
    return PredictOutput.model_validate(
        {
            "id": "test-predict",
            "kind": "predict_output",
            "prompt": "What does it print?",
            "code": CODE,
            "expected": EXPECTED,
            "explanation": "Two rows of three; 0 + 1 + ... + 5 = 15.",
        }
        | more
    )


def _right(spec: PredictOutput, answer: str) -> bool:
    public, key = KIND.build_stored(spec)
    return KIND.check(public, key, answer).correct


# The comparison modes, as for code exercises


def test_whitespace_mode_by_default() -> None:
    spec = _spec()
    assert _right(spec, "torch.Size([2, 3])\n15")
    assert _right(spec, "torch.Size([2,  3])   \r\n15\n\n")
    assert not _right(spec, "torch.Size([2, 3])\n16")
    assert not _right(spec, "torch.Size([2, 3])")


def test_exact_mode_counts_every_space() -> None:
    spec = _spec(comparison={"mode": "exact"})
    assert _right(spec, "torch.Size([2, 3])\n15\n")
    assert not _right(spec, "torch.Size([2,  3])\n15")


def test_numeric_mode_takes_numbers_within_the_tolerance() -> None:
    spec = _spec(
        code="print(2 / 3)",
        expected="0.6666666666666666",
        comparison={"mode": "numeric", "rtol": 1e-3},
    )
    assert _right(spec, "0.6667")
    assert _right(spec, "0.667")
    assert not _right(spec, "0.67")


def test_patterns_mode_matches_each_line_and_shows_its_answer() -> None:
    spec = _spec(
        code="import time\nprint(f'took {time.perf_counter() % 1:.3f} s')",
        expected="took 0\\.\\d{3} s",
        answer="took 0.123 s",
        comparison={"mode": "patterns"},
    )
    assert _right(spec, "took 0.456 s")
    assert not _right(spec, "took 1 s")
    public, key = KIND.build_stored(spec)
    assert KIND.correct_in_words(public, key) == ["took 0.123 s"]


def test_device_placeholders_accept_the_output_of_any_device() -> None:
    spec = _spec(
        code='import torch\nd = "cuda" if torch.cuda.is_available() else "cpu"\n'
        "x = torch.ones(1, device=d)\nprint(x.device)\nprint(x.device.type)",
        expected="{device}\n{device_type}",
    )
    assert _right(spec, "cpu\ncpu")
    assert _right(spec, "cuda:0\ncuda")
    assert not _right(spec, "cuda:0\ncpu")
    public, key = KIND.build_stored(spec)
    assert KIND.correct_in_words(public, key) == ["cpu", "cpu"]


# A wrong answer is shown beside the expected output


def _cells(rows: list[Any]) -> list[tuple[Any, ...]]:
    return [
        (row["expected"]["text"], row["actual"]["text"], row["expected"]["differs"]) for row in rows
    ]


def _rows(public: dict[str, Any], key: dict[str, Any], answer: str) -> list[Any]:
    checked = KIND.check(public, key, answer)
    assert not checked.correct
    return KIND.feedback_recorded(public, key, checked.recorded).rows or []


def test_a_wrong_answer_gets_aligned_rows() -> None:
    public, key = KIND.build_stored(_spec())
    rows = [row.model_dump() for row in _rows(public, key, "torch.Size([2, 3])\n16")]
    assert _cells(rows) == [("torch.Size([2, 3])", "torch.Size([2, 3])", False), ("15", "16", True)]


def test_rows_fill_the_placeholders_for_the_device_the_answer_pictured() -> None:
    spec = _spec(code="print('cpu')\nprint(1)", expected="{device}\n1")
    public, key = KIND.build_stored(spec)
    on_gpu = _rows(public, key, "cuda:0\n2")
    assert [row.expected.text for row in on_gpu] == ["cuda:0", "1"]
    on_cpu = _rows(public, key, "cpu\n2")
    assert [row.expected.text for row in on_cpu] == ["cpu", "1"]


async def test_the_catalog_shows_the_code_and_never_the_output(
    client: httpx.AsyncClient, db: Database
) -> None:
    question = await add_question(db, _spec(), LESSON)
    lesson = (await client.get(f"/api/lessons/{LESSON}")).json()
    [shown] = [q for q in lesson["questions"] if q["id"] == question.id]
    assert shown == {
        "id": question.id,
        "kind": "predict_output",
        "prompt_html": question.prompt_html,
        "code": CODE.rstrip("\n"),
    }
    page = (await client.get(f"/lessons/{LESSON}")).text
    assert "torch.Size([2, 3])" not in page.split(f'id="q-{question.id}"')[1].split("</article>")[0]


async def test_answers_through_the_api(client: httpx.AsyncClient, db: Database) -> None:
    question = await add_question(db, _spec(), LESSON)
    headers, _ = await make_student(db)
    url = f"/api/questions/{question.id}/answers"

    right = (
        await client.post(url, json={"answer": "torch.Size([2, 3])\n15\n"}, headers=headers)
    ).json()
    assert right == {
        "correct": True,
        "explanation_html": question.explanation_html,
        "correct_answer": "torch.Size([2, 3])\n15",
        "tries_left": 0,
        "revealed": True,
    }

    # Another student: the first wrong answer is told which of its lines differ, not the
    # expected output (the rows would show it); the second, the rows.
    headers, _ = await make_student(db)
    first = (
        await client.post(url, json={"answer": "torch.Size([3, 2])\n15"}, headers=headers)
    ).json()
    assert first == {
        "correct": False,
        "explanation_html": "",
        "correct_answer": None,
        "tries_left": 1,
        "revealed": False,
        "wrong_parts": [0],
    }
    wrong = (
        await client.post(url, json={"answer": "torch.Size([3, 2])\n15"}, headers=headers)
    ).json()
    assert wrong["correct"] is False
    assert wrong["correct_answer"] == "torch.Size([2, 3])\n15"
    assert "distance" not in wrong
    assert _cells(wrong["rows"]) == [
        ("torch.Size([2, 3])", "torch.Size([3, 2])", True),
        ("15", "15", False),
    ]
    assert wrong["rows"][0]["expected"] == {
        "number": 1,
        "text": "torch.Size([2, 3])",
        "differs": True,
    }


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (15, "This question takes a string: what the code prints."),
        (["15"], "This question takes a string: what the code prints."),
        ("x" * 10_001, "The answer is at most 10,000 characters."),
    ],
)
async def test_an_answer_of_the_wrong_shape_is_refused(
    client: httpx.AsyncClient, db: Database, answer: Any, message: str
) -> None:
    question = await add_question(db, _spec(), LESSON)
    headers, _ = await make_student(db)
    response = await client.post(
        f"/api/questions/{question.id}/answers", json={"answer": answer}, headers=headers
    )
    assert (response.status_code, response.json()["detail"]) == (422, message)


async def test_an_empty_answer_is_refused_as_a_missing_field(
    client: httpx.AsyncClient, db: Database
) -> None:
    question = await add_question(db, _spec(), LESSON)
    headers, _ = await make_student(db)
    response = await client.post(
        f"/api/questions/{question.id}/answers", json={"answer": "  \n\n "}, headers=headers
    )
    assert response.status_code == 422
    [error] = response.json()["detail"]
    assert (error["loc"], error["msg"]) == (["body", "answer"], "Type what the code prints.")


# The page, without JavaScript


async def test_the_page_answers_by_form_and_shows_the_rows(
    client: httpx.AsyncClient, db: Database
) -> None:
    question = await add_question(db, _spec(), LESSON)
    await browser_signup(client)
    article = question_article((await client.get(f"/lessons/{LESSON}")).text, question.id)
    assert '<pre class="predict-code"' in article and "x.sum().item()" in article
    assert 'name="printed"' in article

    posted = await client.post(
        f"/lessons/{LESSON}/questions/{question.id}",
        data={"csrf_token": csrf_from(article), "printed": "torch.Size([2, 3])\n16"},
    )
    assert posted.status_code == 303
    article = question_article((await client.get(f"/lessons/{LESSON}")).text, question.id)
    assert "Not quite." in article
    # The first try: the line that differs, not the expected output.
    assert '<p class="wrong-parts">Not right: <code>16</code></p>' in article
    assert "side-by-side" not in article and "1 more try before the answer is shown." in article
    posted = await client.post(
        f"/lessons/{LESSON}/questions/{question.id}",
        data={"csrf_token": csrf_from(article), "printed": "torch.Size([2, 3])\n16"},
    )
    article = question_article((await client.get(f"/lessons/{LESSON}")).text, question.id)
    table = re.search(r'<table class="side-by-side">.*?</table>', article, re.S)
    assert table
    assert re.search(r'<tr class="differs">.*?<code>15</code>.*?<code>16</code>', table[0], re.S)
    assert "The answer:" not in article  # the rows show it
    # The answer stays in its box as typed.
    assert re.search(r'name="printed"[^>]*>\ntorch.Size\(\[2, 3\]\)\n16</textarea>', article)


# Content files


def _tree(root: Path, **changes: Any) -> Path:
    question = {
        "id": "one-predict",
        "kind": "predict_output",
        "prompt": "P",
        "code": CODE,
        "expected": EXPECTED,
        "explanation": "E",
    } | changes
    return write_one_lesson(root, [question])


WHERE = "exercises/lessons/one/questions.yaml: questions.0.predict_output"


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"code": "print(1"}, ".code: Value error, not valid Python (line 1): "),
        ({"expected": "\n \n"}, ".expected: Value error, must hold at least one line of output"),
        (
            {"comparison": {"mode": "patterns"}, "expected": "took \\d+ s"},
            ": Value error, with mode patterns, give the answer shown to students (answer)",
        ),
        (
            {"comparison": {"mode": "patterns"}, "expected": "took (\\d+ s", "answer": "took 1 s"},
            ": Value error, expected: expected line 1 is not a valid pattern: ",
        ),
        (
            {"answer": "torch.Size([2, 3])\n16"},
            ": Value error, answer does not match expected under the comparison (whitespace)",
        ),
        ({"comparison": {"mode": "fuzzy"}}, ".comparison.mode: Input should be "),
        ({"comparison": {"rtol": -1}}, ".comparison.rtol: Input should be greater than"),
        ({"output": "15"}, ".output: Extra inputs are not permitted"),
    ],
)
def test_content_problems_name_the_file_and_field(
    tmp_path: Path, changes: dict[str, Any], problem: str
) -> None:
    with pytest.raises(ContentError) as caught:
        load_catalog(_tree(tmp_path / "exercises", **changes))
    [found] = [str(p) for p in caught.value.problems]
    assert found.startswith(WHERE + problem)


def test_a_translation_may_bring_its_own_code_and_output(tmp_path: Path) -> None:
    tr_code = CODE.replace("x", "dizi")
    catalog = load_catalog(
        _tree(tmp_path / "exercises", translations={"tr": {"code": tr_code, "prompt": "Ne?"}})
    )
    [question] = catalog.lessons[0].questions
    assert question.translations["tr"]["public"] == {"code": tr_code.rstrip("\n")}
    assert question.translations["tr"]["key"] == question.key


# `content check --run`: the snippet really prints what the question says


PREDICT = """\
  - id: {id}
    kind: predict_output
    prompt: What does it print?
    code: |
      total = sum(range(5))
      print(total)
    expected: "{expected}"
    explanation: 0 + 1 + 2 + 3 + 4.
"""


def _course_with_snippet(root: Path, expected: str) -> Path:
    tree = write_course(root)
    questions = tree / THIRD_LESSON / "questions.yaml"
    questions.write_text(
        questions.read_text() + PREDICT.format(id="third-steps-predict", expected=expected)
    )
    return tree


@pytest.mark.sandbox
def test_content_check_runs_the_snippet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tree = _course_with_snippet(tmp_path / "right", "10")
    assert main(["content", "check", "--run", "--path", str(tree)]) == 0
    assert "passed  third-steps-predict (code) on cpu" in capsys.readouterr().out


@pytest.mark.sandbox
def test_content_check_fails_a_snippet_that_prints_something_else(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = _course_with_snippet(tmp_path / "wrong", "11")
    assert main(["content", "check", "--run", "--path", str(tree)]) == 1
    out = capsys.readouterr().out
    assert "FAILED  third-steps-predict (code) on cpu: wrong_output" in out
    assert "-11" in out and "+10" in out
