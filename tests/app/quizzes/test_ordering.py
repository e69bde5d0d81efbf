"""Ordering (Parsons) questions: graded by their dependency graph, told how far a wrong order
is from a right one, answered through the API and the page's form, written in content files."""

from __future__ import annotations

import itertools
import random
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from app.content import ContentError, load_catalog
from app.db import Database
from app.models import QuestionAttempt, User
from app.quizzes.kinds import KINDS
from app.quizzes.kinds.ordering import (
    Arrangement,
    Ordering,
    OrderingKey,
    OrderingPublic,
    distance,
    largest_in_order,
)
from tests.app.quizzes.conftest import add_question, question_article, write_one_lesson
from tests.helpers import browser_signup, csrf_from, make_student

KIND = KINDS["ordering"]
LESSON = "tensor-basics"

# import; then `a` and `b` in either order; `total` after both; `show` last; one distractor.
LINES: list[dict[str, Any]] = [
    {"id": "import", "code": "import torch"},
    {"id": "a", "code": "a = torch.ones(2)"},
    {"id": "b", "code": "b = torch.zeros(2)", "depends": ["import"]},
    {"id": "total", "code": "total = a + b", "depends": ["a", "b"]},
    {"id": "show", "code": "print(total.sum().item())"},
    {"id": "wrong", "code": "print(total.item())", "distractor": True},
]


def _spec(lines: list[dict[str, Any]] = LINES, **more: Any) -> Ordering:
    return Ordering.model_validate(
        {
            "id": "test-ordering",
            "kind": "ordering",
            "prompt": "Put the lines in order.",
            "lines": lines,
            "explanation": "Both tensors before their sum.",
        }
        | more
    )


def _built(spec: Ordering) -> tuple[OrderingPublic, OrderingKey, dict[str, str]]:
    """The public part, the key, and each written id's public id (found by its code)."""
    public, key = KIND.build(spec)
    by_code = {line.code: line.id for line in public.lines}
    return public, key, {line.id: by_code[line.code] for line in spec.lines}


def _answer(ids: dict[str, str], *written: str | tuple[str, int]) -> list[dict[str, Any]]:
    """An answer in the API's shape from written ids, each optionally with its indent."""
    return [
        {"id": ids[item], "indent": 0}
        if isinstance(item, str)
        else {"id": ids[item[0]], "indent": item[1]}
        for item in written
    ]


def _check(spec: Ordering, *written: str | tuple[str, int]) -> tuple[bool, Any]:
    public, key, ids = _built(spec)
    stored = public.model_dump(mode="json"), key.model_dump(mode="json")
    checked = KIND.check(*stored, _answer(ids, *written))
    if checked.correct:
        return True, None
    return False, KIND.feedback_recorded(*stored, checked.recorded).distance


# Grading by the dependency graph


def test_every_order_the_dependencies_allow_is_right() -> None:
    spec = _spec()
    assert _check(spec, "import", "a", "b", "total", "show") == (True, None)
    assert _check(spec, "import", "b", "a", "total", "show") == (True, None)


def test_an_order_against_a_dependency_is_wrong() -> None:
    correct, _ = _check(_spec(), "import", "a", "total", "b", "show")
    assert not correct


def test_a_distractor_in_the_program_is_wrong_even_in_a_right_order() -> None:
    correct, found = _check(_spec(), "import", "a", "b", "total", "show", "wrong")
    assert not correct
    assert (found.in_place, found.total, found.steps) == (5, 5, 1)


def test_a_missing_line_is_wrong() -> None:
    correct, found = _check(_spec(), "import", "a", "b", "total")
    assert not correct
    assert (found.in_place, found.steps) == (4, 1)


def test_lines_without_depends_follow_the_line_written_before_them() -> None:
    spec = _spec([{"id": f"l{i}", "code": f"x{i} = {i}"} for i in range(4)])
    assert _check(spec, "l0", "l1", "l2", "l3")[0]
    assert not _check(spec, "l1", "l0", "l2", "l3")[0]


def test_indentation_counts_only_when_the_question_grades_it() -> None:
    lines: list[dict[str, Any]] = [
        {"id": "loop", "code": "for i in range(3):"},
        {"id": "body", "code": "print(i)", "indent": 1},
        {"id": "after", "code": "print('done')"},
    ]
    graded = _spec(lines, indent=True)
    assert _check(graded, "loop", ("body", 1), "after")[0]
    correct, found = _check(graded, "loop", "body", "after")
    assert not correct
    assert (found.in_place, found.total, found.steps) == (2, 3, 1)
    assert not _check(graded, "loop", ("body", 1), ("after", 1))[0]

    # Not graded: the lines are shown indented as written and the answer's indent is the
    # one shown, whatever was sent.
    shown = _spec(lines)
    public, key, ids = _built(shown)
    assert {line.code: line.indent for line in public.lines}["print(i)"] == 1
    checked = KIND.check(
        public.model_dump(mode="json"),
        key.model_dump(mode="json"),
        _answer(ids, ("loop", 3), "body", "after"),
    )
    assert checked.correct
    assert Arrangement.model_validate(checked.recorded).model_dump() == _answer(
        ids, "loop", ("body", 1), "after"
    )


def test_the_right_answer_keeps_the_written_order_where_it_can() -> None:
    public, key, ids = _built(_spec())
    right = KIND.correct_answer(public, key)
    assert [p.id for p in right.root] == [ids[i] for i in ("import", "a", "b", "total", "show")]
    assert KIND.describe(public, right).lines == [
        "import torch",
        "a = torch.ones(2)",
        "b = torch.zeros(2)",
        "total = a + b",
        "print(total.sum().item())",
    ]


# Partial credit: how far an order is from the nearest right one


def _key(depends: dict[str, list[str]], indents: dict[str, int] | None = None) -> OrderingKey:
    return OrderingKey(
        depends=depends,
        indents=indents or dict.fromkeys(depends, 0),
        order=list(depends),
        indent=indents is not None,
    )


def _distance(key: OrderingKey, order: list[str]) -> tuple[int, int, int]:
    found = distance(key, Arrangement.model_validate([{"id": i} for i in order]))
    return found.in_place, found.total, found.steps


# PrairieLearn's own test of its DAG grading (dag_checker tests, "problem 1"): the same
# submissions. PrairieLearn counts a move as a deletion plus an insertion (edit distances
# 0, 0, 2, 4); a move here is one step.
PL_DAG = {
    "1": [],
    "2": ["1"],
    "3": ["1"],
    "4": ["2", "3"],
    "5": ["1"],
    "6": ["2"],
    "7": ["4", "5", "6"],
    "8": [],
    "9": ["7", "8"],
    "10": ["9"],
}


@pytest.mark.parametrize(
    ("order", "expected"),
    [
        ("1 2 3 4 5 6 7 8 9 10", (10, 10, 0)),
        ("8 1 3 2 6 4 5 7 9 10", (10, 10, 0)),
        ("1 2 3 4 5 6 7 9 8 10", (9, 10, 1)),
        ("1 2 6 3 4 5", (6, 10, 4)),
        # Reversed: only lines that need not come in any order among themselves can stay,
        # at most four of them (4, 5, 6 and 8, say).
        ("10 9 8 7 6 5 4 3 2 1", (4, 10, 6)),
    ],
)
def test_distance_to_the_nearest_right_order(order: str, expected: tuple[int, int, int]) -> None:
    assert _distance(_key(PL_DAG), order.split()) == expected


def test_a_chain_reversed_keeps_one_line_in_place() -> None:
    chain = {"a": [], "b": ["a"], "c": ["b"], "d": ["c"], "e": ["d"]}
    assert _distance(_key(chain), ["e", "d", "c", "b", "a"]) == (1, 5, 4)
    assert _distance(_key(chain), ["a", "b", "d", "e", "c"]) == (4, 5, 1)


def test_distractors_and_missing_lines_count_one_step_each() -> None:
    chain = {"a": [], "b": ["a"], "c": ["b"]}
    assert _distance(_key(chain), ["x", "a", "b", "y", "c"]) == (3, 3, 2)
    assert _distance(_key(chain), ["c"]) == (1, 3, 2)


def test_a_wrong_indent_is_one_step_and_not_in_place() -> None:
    depends = {"loop": [], "body": ["loop"], "after": ["body"]}
    key = _key(depends, {"loop": 0, "body": 1, "after": 0})
    wrong = Arrangement.model_validate(
        [{"id": "loop"}, {"id": "body", "indent": 2}, {"id": "after"}]
    )
    found = distance(key, wrong)
    assert (found.in_place, found.steps) == (2, 1)


def _brute_force_largest(order: list[str], ancestors: dict[str, set[str]]) -> int:
    for size in range(len(order), 0, -1):
        for kept in itertools.combinations(order, size):
            if all(
                kept[j] not in ancestors[kept[i]]
                for i in range(len(kept))
                for j in range(i + 1, len(kept))
            ):
                return size
    return 0


def test_the_lines_that_can_stay_are_found_exactly() -> None:
    """Dilworth's theorem against trying every subset, on random graphs and orders."""
    generator = random.Random(12)
    for _ in range(300):
        names = [f"n{i}" for i in range(generator.randint(1, 8))]
        depends = {
            name: [p for p in names[:index] if generator.random() < 0.35]
            for index, name in enumerate(names)
        }
        ancestors: dict[str, set[str]] = {}
        for name in names:
            ancestors[name] = set(depends[name]).union(*(ancestors[p] for p in depends[name]))
        order = generator.sample(names, len(names))
        assert largest_in_order(order, ancestors) == _brute_force_largest(order, ancestors)


def test_forty_lines_are_measured_at_once() -> None:
    names = [f"n{i}" for i in range(40)]
    chain = {name: names[index - 1 : index] for index, name in enumerate(names)}
    assert _distance(_key(chain), names[::-1]) == (1, 40, 39)


# The key never leaves the server before an answer


def test_the_lines_are_never_shown_in_a_right_order_nor_with_their_written_ids() -> None:
    for question in range(30):
        spec = _spec([{"id": f"l{i}", "code": f"x{i} = {i}"} for i in range(3)], id=f"q-{question}")
        public, key, _ = _built(spec)
        shown = [line.id for line in public.lines]
        assert shown != key.order
        assert not set(shown) & {f"l{i}" for i in range(3)}
        assert KIND.content_problems(public, key) == []


def test_a_question_whose_every_order_is_right_is_refused() -> None:
    spec = _spec([{"id": f"l{i}", "code": f"x{i} = {i}", "depends": []} for i in range(3)])
    public, key = KIND.build(spec)
    [problem] = KIND.content_problems(public, key)
    assert problem.field == "lines"
    assert "gives the answer away" in problem.message


async def test_the_catalog_shows_lines_and_nothing_of_the_key(
    client: httpx.AsyncClient, db: Database
) -> None:
    question = await add_question(db, _spec(), LESSON)
    lesson = (await client.get(f"/api/lessons/{LESSON}")).json()
    [shown] = [q for q in lesson["questions"] if q["id"] == question.id]
    assert set(shown) == {"id", "kind", "prompt_html", "lines", "indent"}
    assert all(set(line) == {"id", "code", "indent"} for line in shown["lines"])
    assert sorted(line["code"] for line in shown["lines"]) == sorted(line["code"] for line in LINES)
    text = str(shown)
    for secret in ("depends", "distractor", "indents", "'import'", "'total'"):
        assert secret not in text
    assert [line["code"] for line in shown["lines"]] != [line["code"] for line in LINES[:5]]


# Answering through the API


async def test_answers_through_the_api(client: httpx.AsyncClient, db: Database) -> None:
    question = await add_question(db, _spec(), LESSON)
    _, _, ids = _built(_spec())
    headers, _ = await make_student(db)
    url = f"/api/questions/{question.id}/answers"

    right = await client.post(
        url, json={"answer": _answer(ids, "import", "b", "a", "total", "show")}, headers=headers
    )
    assert right.status_code == 200
    assert right.json() == {
        "correct": True,
        "explanation_html": question.explanation_html,
        "correct_answer": _answer(ids, "import", "a", "b", "total", "show"),
        "tries_left": 0,
        "revealed": True,
    }

    # Another student's wrong answer is told how far it is, not the right order (no parts
    # named: a line is not wrong by itself, the order is).
    headers, _ = await make_student(db)
    wrong = await client.post(
        url, json={"answer": _answer(ids, "show", "import", "a", "b", "total")}, headers=headers
    )
    body = wrong.json()
    assert body["correct"] is False
    assert body["distance"] == {"in_place": 4, "total": 5, "steps": 1}
    assert (body["correct_answer"], body["tries_left"], body["revealed"]) == (None, 1, False)
    assert "rows" not in body and "wrong_parts" not in body


async def test_an_empty_program_is_refused_as_a_missing_field(
    client: httpx.AsyncClient, db: Database
) -> None:
    question = await add_question(db, _spec(), LESSON)
    headers, _ = await make_student(db)
    response = await client.post(
        f"/api/questions/{question.id}/answers", json={"answer": []}, headers=headers
    )
    assert response.status_code == 422
    [error] = response.json()["detail"]
    assert (error["loc"], error["msg"]) == (
        ["body", "answer"],
        "Put at least one line in your program.",
    )


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ("import torch", "This question takes a list of"),
        ([{"indent": 0}], "This question takes a list of"),
        ([{"id": "LINE", "indent": "1"}], "This question takes a list of"),
        ([{"id": "LINE", "indent": 0, "more": 1}], "This question takes a list of"),
        ([{"id": "nope"}], "Every id must be one of the question's lines."),
        ([{"id": "LINE"}, {"id": "LINE"}], "A line is used twice."),
        ([{"id": "LINE", "indent": 5}], "Indents run from 0 to 4."),
    ],
)
async def test_an_answer_of_the_wrong_shape_is_refused(
    client: httpx.AsyncClient, db: Database, answer: Any, message: str
) -> None:
    question = await add_question(db, _spec(indent=True), LESSON)
    _, _, ids = _built(_spec(indent=True))
    if isinstance(answer, list):
        answer = [
            item | {"id": ids["import"]} if item.get("id") == "LINE" else item for item in answer
        ]
    headers, user_id = await make_student(db)
    response = await client.post(
        f"/api/questions/{question.id}/answers", json={"answer": answer}, headers=headers
    )
    assert response.status_code == 422
    assert response.json()["detail"].startswith(message)
    async with db.sessionmaker() as session:
        recorded = await session.scalars(
            select(QuestionAttempt).where(QuestionAttempt.user_id == user_id)
        )
        assert recorded.all() == []


# The page's form, without JavaScript


async def _post(client: httpx.AsyncClient, question_id: str, fields: dict[str, str]) -> str:
    token = csrf_from(question_article((await client.get(f"/lessons/{LESSON}")).text, question_id))
    posted = await client.post(
        f"/lessons/{LESSON}/questions/{question_id}", data={"csrf_token": token} | fields
    )
    assert posted.status_code == 303
    return question_article((await client.get(f"/lessons/{LESSON}")).text, question_id)


async def test_the_form_takes_a_place_and_an_indent_per_line(
    client: httpx.AsyncClient, db: Database
) -> None:
    spec = _spec(
        [
            {"id": "loop", "code": "for i in range(3):"},
            {"id": "body", "code": "print(i)", "indent": 1},
            {"id": "after", "code": "print('done')"},
            {"id": "wrong", "code": "print(j)", "distractor": True},
        ],
        indent=True,
    )
    question = await add_question(db, spec, LESSON)
    _, _, ids = _built(spec)
    name = await browser_signup(client)

    page = await client.get(f"/lessons/{LESSON}")
    article = question_article(page.text, question.id)
    for line_id in ids.values():
        assert f'name="position-{line_id}"' in article
        assert f'name="indent-{line_id}"' in article

    # Wrong: the body left flush. Places need not be consecutive; the page then says how far
    # the answer is, and the selects keep what was chosen.
    article = await _post(
        client,
        question.id,
        {
            f"position-{ids['loop']}": "1",
            f"position-{ids['body']}": "3",
            f"position-{ids['after']}": "7",
            f"position-{ids['wrong']}": "",
        },
    )
    assert "Not quite." in article
    assert "2 of 3 lines in place; 1 step away." in article
    assert re.search(rf'name="position-{ids["body"]}".*?<option value="2" selected', article, re.S)

    article = await _post(
        client,
        question.id,
        {
            f"position-{ids['loop']}": "1",
            f"position-{ids['body']}": "2",
            f"indent-{ids['body']}": "1",
            f"position-{ids['after']}": "3",
        },
    )
    assert "Correct." in article

    # Two lines in one place: refused with a message, nothing recorded.
    article = await _post(
        client, question.id, {f"position-{ids['loop']}": "1", f"position-{ids['body']}": "1"}
    )
    assert "Two lines have the same place" in article
    async with db.sessionmaker() as session:
        attempts = (
            await session.scalars(
                select(QuestionAttempt)
                .join(User)
                .where(User.username == name, QuestionAttempt.question_id == question.id)
                .order_by(QuestionAttempt.id)
            )
        ).all()
    assert [a.correct for a in attempts] == [False, True]
    assert attempts[0].answer == _answer(ids, "loop", "body", "after")


async def test_the_page_in_turkish_says_how_far_in_turkish(
    client: httpx.AsyncClient, db: Database
) -> None:
    question = await add_question(db, _spec(), LESSON)
    _, _, ids = _built(_spec())
    await browser_signup(client)
    client.cookies.set("lang", "tr")
    article = await _post(
        client,
        question.id,
        {f"position-{ids[i]}": str(n) for n, i in enumerate(["show", "import", "a", "b"], 1)},
    )
    assert "5 satırın 3 tanesi yerinde; 2 adım uzakta." in article


# Content files


# The question as written in a content file.
WRITTEN: dict[str, Any] = {
    "id": "one-order",
    "kind": "ordering",
    "prompt": "Order them.",
    "lines": LINES,
    "explanation": "E.",
}


def _problems(tmp_path: Path, **changes: Any) -> list[str]:
    question = WRITTEN | changes
    with pytest.raises(ContentError) as caught:
        load_catalog(write_one_lesson(tmp_path / "exercises", [question]))
    return [str(problem) for problem in caught.value.problems]


def test_a_well_written_question_loads(tmp_path: Path) -> None:
    catalog = load_catalog(write_one_lesson(tmp_path / "exercises", [WRITTEN]))
    assert catalog.lessons[0].questions[0].kind == "ordering"


WHERE = "exercises/lessons/one/questions.yaml: questions.0.ordering"


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (
            [*LINES[:3], {"id": "c", "code": "c = 1", "depends": ["nowhere"]}],
            "line 'c' depends on 'nowhere', which is no line",
        ),
        (
            [
                {"id": "a", "code": "a = b", "depends": ["b"]},
                {"id": "b", "code": "b = a", "depends": ["a"]},
            ],
            "lines depend on each other in a circle: ",
        ),
        ([*LINES, {"id": "a", "code": "z = 1"}], "every line needs its own id; used twice: ['a']"),
        (
            [*LINES, {"id": "z", "code": "import torch"}],
            "every line needs its own code; used twice: ['import torch']",
        ),
        (
            [*LINES[:2], {"id": "d", "code": "d = 1", "distractor": True, "depends": ["a"]}],
            "line 'd' is a distractor: it depends on nothing",
        ),
        (
            [*LINES[:2], {"id": "c", "code": "c = 1", "depends": ["wrong"]}, LINES[5]],
            "line 'c' depends on 'wrong', a distractor",
        ),
        (
            [LINES[0], {"id": "w", "code": "w = 1", "distractor": True}],
            "a right program needs at least two lines that are not distractors",
        ),
    ],
)
def test_content_problems_name_the_file_and_field(
    tmp_path: Path, lines: list[dict[str, Any]], message: str
) -> None:
    [problem] = _problems(tmp_path, lines=lines)
    assert problem.startswith(f"{WHERE}.lines: Value error, {message}")


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ({"id": "Upper", "code": "x = 1"}, "lines.6.id"),
        ({"id": "deep", "code": "x = 1", "indent": 5}, "lines.6.indent"),
        ({"id": "typo", "code": "x = 1", "depend": ["a"]}, "lines.6.depend"),
    ],
)
def test_a_bad_line_is_named_by_its_index(tmp_path: Path, line: dict[str, Any], field: str) -> None:
    [problem] = _problems(tmp_path, lines=[*LINES, line])
    assert problem.startswith(f"{WHERE}.{field}: ")


# Translations: the code of each line, the same ids, dependencies and order shown


def _translated(tmp_path: Path, words: list[dict[str, Any]]) -> list[Any]:
    """The questions loaded with a Turkish `lines` (ContentError if refused)."""
    question = WRITTEN | {"translations": {"tr": {"lines": words}}}
    return load_catalog(write_one_lesson(tmp_path / "exercises", [question])).lessons[0].questions


def test_a_translation_changes_only_the_code(tmp_path: Path) -> None:
    words = [{"id": line["id"], "code": f"{line['code']}  # tr"} for line in LINES]
    [question] = _translated(tmp_path, words)
    public, key = question.translations["tr"]["public"], question.translations["tr"]["key"]
    assert key == question.key
    assert [line["id"] for line in public["lines"]] == [
        line["id"] for line in question.public["lines"]
    ]
    assert all(line["code"].endswith("  # tr") for line in public["lines"])


def test_a_translation_with_other_ids_or_dependencies_is_refused(tmp_path: Path) -> None:
    words = [{"id": line["id"], "code": line["code"]} for line in LINES]
    words[4]["id"] = "other"
    words[3]["depends"] = ["a"]
    with pytest.raises(ContentError) as caught:
        _translated(tmp_path, words)
    where = "exercises/lessons/one/questions.yaml: questions.0.translations.tr"
    problems = [str(p) for p in caught.value.problems if ".lines." in p.field]
    assert problems == [
        f"{where}.lines.3.depends: differs from the English; translate only the code (or "
        "leave depends out)",
        f"{where}.lines.4.id: must be 'show', as in the English, in order",
    ]
