"""The registry of question kinds covers every place a kind matters: content files, the
catalog API, the lesson page (its partial and its script, the form it posts), answering, and
the teachers' views; and nothing outside a kind's own files branches on kind names."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any, ClassVar, Literal

import httpx
import pytest
from pydantic import BaseModel, RootModel, StrictBool
from sqlalchemy import select
from starlette.datastructures import FormData

from app.classes import answers
from app.config import REPO_ROOT
from app.content import load_catalog
from app.content.loader import build_question
from app.content.schema import questions_file
from app.db import Database
from app.lessons.router import question_out
from app.models import Question, QuestionAttempt, User
from app.quizzes.kinds import (
    KINDS,
    AnswerView,
    InvalidAnswer,
    QuestionKind,
    QuestionOut,
    QuestionSource,
    UnknownKind,
    kind_of,
)
from app.quizzes.kinds.base import TEMPLATES
from tests.app.quizzes.conftest import _add_question, question_article, write_one_lesson
from tests.helpers import browser_signup, csrf_from, make_student

PARTIALS = REPO_ROOT / "app" / "templates" / TEMPLATES
SCRIPTS = REPO_ROOT / "frontend" / "questions"
LESSON = "tensor-basics"
NAMES = sorted(KINDS)


def _source(kind: QuestionKind[Any, Any, Any, Any]) -> QuestionSource:
    [source] = questions_file().model_validate({"questions": [kind.example]}).questions
    return source


async def _add_example(db: Database, name: str) -> Question:
    question_id = await _add_question(db, _source(KINDS[name]), LESSON)
    async with db.sessionmaker() as session:
        return await session.get_one(Question, question_id)


async def _attempts(db: Database, question_id: str) -> list[QuestionAttempt]:
    async with db.sessionmaker() as session:
        rows = await session.scalars(
            select(QuestionAttempt)
            .where(QuestionAttempt.question_id == question_id)
            .order_by(QuestionAttempt.id)
        )
        return list(rows.all())


# The files of a kind


@pytest.mark.parametrize("name", NAMES)
def test_every_kind_has_its_module_partial_and_script(name: str) -> None:
    kind = KINDS[name]
    assert kind.name == name
    assert (REPO_ROOT / "app" / "quizzes" / "kinds" / f"{name}.py").is_file()
    assert (REPO_ROOT / "app" / "templates" / kind.template).is_file()
    assert (PARTIALS / f"{name}.html").is_file()
    assert (SCRIPTS / f"{name}.js").is_file()


def test_no_partial_or_script_without_a_kind() -> None:
    assert sorted(p.stem for p in PARTIALS.glob("*.html")) == NAMES
    assert sorted(p.stem for p in SCRIPTS.glob("*.js")) == NAMES


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node (make frontend)")
@pytest.mark.parametrize("name", NAMES)
def test_every_script_exports_what_answers_js_calls(name: str) -> None:
    script = (
        f"const m = await import({json.dumps((SCRIPTS / f'{name}.js').as_uri())});"
        "console.log(JSON.stringify(Object.keys(m).filter((k) => typeof m[k] === 'function')));"
    )
    found = subprocess.run(
        ["node", "--input-type=module", "-e", script], capture_output=True, text=True, check=True
    )
    assert {"answerOf", "describeCorrect"} <= set(json.loads(found.stdout))


def _code_outside_the_kinds() -> list[Path]:
    own = (REPO_ROOT / "app" / "quizzes" / "kinds", PARTIALS, SCRIPTS, REPO_ROOT / "app" / "static")
    files = [
        *(REPO_ROOT / "app").rglob("*.py"),
        *(REPO_ROOT / "app" / "templates").rglob("*.html"),
        *(REPO_ROOT / "frontend").rglob("*.js"),
        *(REPO_ROOT / "frontend").rglob("*.mjs"),
    ]
    return sorted(path for path in files if not any(path.is_relative_to(o) for o in own))


def test_nothing_outside_a_kinds_own_files_names_a_kind() -> None:
    """No `kind == "fill_in"`, no `"matching"` as a key or in a tuple: outside the kind's
    module, partial and script, code asks the registry. (Other things called kind, such as
    an insight item's "exercise" or a flash message's "success", are not question kinds.)"""
    names = "|".join(re.escape(name) for name in KINDS)
    literal = re.compile(rf"""["'`]({names})["'`]|\bkind\s*(?:===?|!==?)\s*["'`]({names})\b""")
    found = [
        f"{path.relative_to(REPO_ROOT)}:{number}: {line.strip()}"
        for path in _code_outside_the_kinds()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if literal.search(line)
    ]
    assert found == []


def test_an_unknown_kind_is_a_clear_error() -> None:
    with pytest.raises(UnknownKind, match=r"unknown question kind 'essay' \(known: .*fill_in"):
        kind_of("essay")


# Every kind's example through content, catalog, page, answering and teachers' views


@pytest.mark.parametrize("name", NAMES)
def test_content_files_are_read_by_every_kind(name: str) -> None:
    kind = KINDS[name]
    source = _source(kind)
    assert isinstance(source, kind.source)
    data = build_question(source)
    assert data.kind == name
    assert kind.problems_stored(data.public, data.key) == []
    # A typo in a field of this kind is reported under the kind's tag, as pydantic names it.
    broken = kind.example | {"explantion": "typo"}
    with pytest.raises(ValueError, match=rf"questions\.0\.{name}\.explantion"):
        questions_file().model_validate({"questions": [broken]})


async def test_content_and_catalog_know_exactly_the_registered_kinds(
    client: httpx.AsyncClient,
) -> None:
    with pytest.raises(ValueError, match="does not match any of the expected tags") as caught:
        questions_file().model_validate({"questions": [{"kind": "essay"}]})
    tags = re.search(r"expected tags: (.*?) \[", str(caught.value))
    assert tags and set(re.findall(r"'(\w+)'", tags[1])) == set(KINDS)
    schema = (await client.get("/openapi.json")).json()
    items = schema["components"]["schemas"]["LessonOut"]["properties"]["questions"]["items"]
    assert set(items["discriminator"]["mapping"]) == set(KINDS)
    for name, kind in KINDS.items():
        assert items["discriminator"]["mapping"][name].endswith(f"/{kind.out_model.__name__}")


@pytest.mark.parametrize("name", NAMES)
async def test_every_kind_from_catalog_to_teacher(
    client: httpx.AsyncClient, db: Database, name: str
) -> None:
    kind = KINDS[name]
    question = await _add_example(db, name)

    # The catalog: the kind's public part, nothing of the key.
    lesson = (await client.get(f"/api/lessons/{LESSON}")).json()
    [shown] = [q for q in lesson["questions"] if q["id"] == question.id]
    assert shown == {"id": question.id, "kind": name, "prompt_html": question.prompt_html} | (
        question.public
    )
    assert set(shown) == set(kind.out_model.model_fields)
    for field in question.key:
        assert field not in shown or field in question.public

    # The page draws the kind's partial inside the question's form; an empty form is refused
    # by the kind's form reader with a message, and records nothing.
    await browser_signup(client)
    page = await client.get(f"/lessons/{LESSON}")
    article = question_article(page.text, question.id)
    assert f'data-kind="{name}"' in article
    form = re.search(r"<form .*?</form>", article, re.S)
    assert form and re.search(r"<(input|select|textarea)\b(?![^>]*type=\"hidden\")", form[0])
    posted = await client.post(
        f"/lessons/{LESSON}/questions/{question.id}",
        data={"csrf_token": csrf_from(article)},
    )
    assert posted.status_code == 303
    assert 'role="alert"' in question_article(
        (await client.get(f"/lessons/{LESSON}")).text, question.id
    )
    assert await _attempts(db, question.id) == []

    # Answering through the API with the kind's correct answer.
    right = kind.correct_answer(kind.public_of(question.public), kind.key_of(question.key))
    headers, _ = await make_student(db)
    response = await client.post(
        f"/api/questions/{question.id}/answers",
        json={"answer": right.model_dump(mode="json")},
        headers=headers,
    )
    assert response.status_code == 200, response.text
    assert response.json()["correct"] is True
    assert response.json()["correct_answer"] == right.model_dump(mode="json")
    [attempt] = await _attempts(db, question.id)

    # Teachers read the recorded answer, and the correct one, in the same words.
    in_words = kind.correct_in_words(question.public, question.key)
    assert in_words
    assert answers.describe_answer(question, attempt.answer).lines == in_words
    assert answers.correct_answer(question) == in_words
    assert answers.summarise(name, question.public, attempt.answer) == "; ".join(in_words)
    # An answer that no longer fits the question is shown as its JSON, never an error.
    assert answers.describe(name, question.public, {"no": ["such", "shape"]}).lines == [
        '{"no": ["such", "shape"]}'
    ]


# A kind added in a test, and nothing else: content, answering (API and form), catalog JSON
# and the teachers' words all find it through the registry.


class TrueFalse(QuestionSource):
    kind: Literal["true_false"]
    true: bool


class Nothing(BaseModel):
    pass


class Truth(BaseModel):
    true: bool


class Verdict(RootModel[StrictBool]):
    pass


class TrueFalseOut(QuestionOut):
    kind: Literal["true_false"] = "true_false"


class TrueFalseKind(QuestionKind[TrueFalse, Nothing, Truth, Verdict]):
    name = "true_false"
    source = TrueFalse
    public_model = Nothing
    key_model = Truth
    answer_model = Verdict
    out_model = TrueFalseOut
    example: ClassVar[dict[str, Any]] = {
        "id": "tf",
        "kind": "true_false",
        "prompt": "Tensors are made on the CPU by default.",
        "true": True,
        "explanation": "Unless you pass a device.",
    }

    def build(self, source: TrueFalse) -> tuple[Nothing, Truth]:
        return Nothing(), Truth(true=source.true)

    def read_answer(self, public: Nothing, given: object) -> Verdict:
        if not isinstance(given, bool):
            raise InvalidAnswer("This question takes true or false.")
        return Verdict(given)

    def read_form(self, public: Nothing, form: FormData) -> Verdict:
        return self.read_answer(public, {"true": True, "false": False}.get(str(form.get("tf"))))

    def is_correct(self, key: Truth, answer: Verdict) -> bool:
        return answer.root == key.true

    def correct_answer(self, public: Nothing, key: Truth) -> Verdict:
        return Verdict(key.true)

    def describe(self, public: Nothing, answer: Verdict) -> AnswerView:
        return AnswerView(["true" if answer.root else "false"], [])


@pytest.fixture
def true_false(monkeypatch: pytest.MonkeyPatch) -> TrueFalseKind:
    kind = TrueFalseKind()
    monkeypatch.setitem(KINDS, kind.name, kind)
    return kind


def test_a_new_kind_is_read_from_content_files(tmp_path: Path, true_false: TrueFalseKind) -> None:
    catalog = load_catalog(write_one_lesson(tmp_path / "exercises", [true_false.example]))
    [question] = catalog.lessons[0].questions
    assert (question.kind, question.public, question.key) == ("true_false", {}, {"true": True})


async def test_a_new_kind_is_answered_shown_and_described(
    client: httpx.AsyncClient, db: Database, true_false: TrueFalseKind
) -> None:
    question_id = await _add_question(db, _source(true_false), LESSON)
    async with db.sessionmaker() as session:
        question = await session.get_one(Question, question_id)
    out = question_out(question)
    assert isinstance(out, TrueFalseOut)
    assert out.model_dump() == {
        "id": "tf",
        "prompt_html": question.prompt_html,
        "kind": "true_false",
    }

    headers, _ = await make_student(db)
    url = f"/api/questions/{question_id}/answers"
    wrong = await client.post(url, json={"answer": "yes"}, headers=headers)
    assert (wrong.status_code, wrong.json()["detail"]) == (
        422,
        "This question takes true or false.",
    )
    right = (await client.post(url, json={"answer": True}, headers=headers)).json()
    assert (right["correct"], right["correct_answer"]) == (True, True)

    # The page's form, as a browser would post what the kind's partial draws (the session's
    # CSRF token is read from another lesson: this kind has no partial to draw its page).
    name = await browser_signup(client)
    token = csrf_from((await client.get("/lessons/gpu-support")).text)
    posted = await client.post(
        f"/lessons/{LESSON}/questions/{question_id}", data={"csrf_token": token, "tf": "false"}
    )
    assert posted.status_code == 303
    async with db.sessionmaker() as session:
        [by_form] = (
            await session.scalars(select(QuestionAttempt).join(User).where(User.username == name))
        ).all()
    assert (by_form.answer, by_form.correct) == (False, False)

    assert answers.describe_answer(question, False).lines == ["false"]
    assert answers.correct_answer(question) == ["true"]
    assert answers.summarise("true_false", question.public, True) == "true"
