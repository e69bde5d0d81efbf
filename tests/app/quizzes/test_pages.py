"""Answering questions from the lesson page's plain HTML forms (no JavaScript)."""

from __future__ import annotations

import re

import httpx
import pytest
from markupsafe import escape
from sqlalchemy import select

from app.db import Database
from app.models import Question, QuestionAttempt, User
from tests.app.quizzes.conftest import question_article
from tests.helpers import browser_signup, csrf_from

SLUG = "gpu-support"
MC = "gpu-support-same-device"
FILL = "gpu-support-move-to"
MATCH = "gpu-support-match-terms"


async def _question(db: Database, question_id: str) -> Question:
    async with db.sessionmaker() as session:
        return await session.get_one(Question, question_id)


async def _attempts(db: Database, username: str) -> list[QuestionAttempt]:
    async with db.sessionmaker() as session:
        return list(
            (
                await session.scalars(
                    select(QuestionAttempt)
                    .join(User)
                    .where(User.username == username)
                    .order_by(QuestionAttempt.id)
                )
            ).all()
        )


async def _submit(
    client: httpx.AsyncClient, question_id: str, fields: list[tuple[str, str]], slug: str = SLUG
) -> httpx.Response:
    page = await client.get(f"/lessons/{slug}")
    # The token of the question's own form, as a browser without JavaScript would send it.
    token = csrf_from(question_article(page.text, question_id))
    return await client.post(
        f"/lessons/{slug}/questions/{question_id}",
        content=httpx.QueryParams([("csrf_token", token), *fields]).__str__().encode(),
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )


async def test_before_answering_no_explanation_is_on_the_page(
    client: httpx.AsyncClient, db: Database
) -> None:
    await browser_signup(client)
    page = await client.get(f"/lessons/{SLUG}")
    assert page.status_code == 200
    for question_id in (MC, FILL, MATCH):
        question = await _question(db, question_id)
        article = question_article(page.text, question_id)
        assert question.explanation_html not in page.text
        assert 'class="verdict' not in article
        assert 'class="explanation"' not in article
        assert f'action="/lessons/{SLUG}/questions/{question_id}"' in article
        assert 'name="csrf_token"' in article


async def test_right_answer_by_form_shows_feedback_and_explanation(
    client: httpx.AsyncClient, db: Database
) -> None:
    name = await browser_signup(client)
    response = await _submit(client, MC, [("answer", "3")])
    assert response.status_code == 303
    assert response.headers["location"] == f"/lessons/{SLUG}#q-{MC}"

    page = await client.get(response.headers["location"])
    article = question_article(page.text, MC)
    assert "Correct." in article
    assert (await _question(db, MC)).explanation_html in article
    assert re.search(r'value="3"\s+checked', article)
    # Only the answered question shows its explanation.
    assert (await _question(db, FILL)).explanation_html not in page.text
    [attempt] = await _attempts(db, name)
    assert (attempt.question_id, attempt.answer, attempt.correct) == (MC, 3, True)


async def test_wrong_answer_by_form_shows_the_correct_answer(
    client: httpx.AsyncClient, db: Database
) -> None:
    name = await browser_signup(client)
    response = await _submit(client, MC, [("answer", "0")])
    assert response.status_code == 303
    article = question_article((await client.get(f"/lessons/{SLUG}")).text, MC)
    assert "Not quite." in article
    assert "The answer:" in article
    assert "It raises an error; both must be on the same device." in article.split("The answer:")[1]
    assert (await _question(db, MC)).explanation_html in article
    assert [a.correct for a in await _attempts(db, name)] == [False]


async def test_fill_in_by_form(client: httpx.AsyncClient, db: Database) -> None:
    name = await browser_signup(client)
    response = await _submit(client, FILL, [("blank", "  to ")])
    assert response.status_code == 303
    article = question_article((await client.get(f"/lessons/{SLUG}")).text, FILL)
    assert "Correct." in article
    assert 'value="to"' in article
    [attempt] = await _attempts(db, name)
    assert (attempt.answer, attempt.correct) == (["to"], True)


async def test_a_wrong_fill_in_by_form_shows_the_answer_in_its_template(
    client: httpx.AsyncClient, db: Database
) -> None:
    """The right answer in words, as the teacher's views write it too: the template with
    each blank's answer in brackets."""
    await browser_signup(client)
    await _submit(client, FILL, [("blank", "cuda")])
    article = question_article((await client.get(f"/lessons/{SLUG}")).text, FILL)
    assert "Not quite." in article
    assert "<code>x = x.[to](device)</code>" in article.split("The answer:")[1]
    assert 'value="cuda"' in article


async def test_matching_by_form(client: httpx.AsyncClient, db: Database) -> None:
    name = await browser_signup(client)
    question = await _question(db, MATCH)
    pairs: dict[str, str] = question.key["pairs"]
    fields = [(f"match-{left}", right) for left, right in pairs.items()]
    response = await _submit(client, MATCH, fields)
    assert response.status_code == 303
    article = question_article((await client.get(f"/lessons/{SLUG}")).text, MATCH)
    assert "Correct." in article
    assert question.explanation_html in article
    [attempt] = await _attempts(db, name)
    assert (attempt.answer, attempt.correct) == (pairs, True)


async def test_a_wrong_matching_by_form_lists_the_pairs(
    client: httpx.AsyncClient, db: Database
) -> None:
    await browser_signup(client)
    question = await _question(db, MATCH)
    lefts = [item["id"] for item in question.public["left"]]
    rights = [question.key["pairs"][left] for left in lefts]
    fields = [
        (f"match-{left}", right) for left, right in zip(lefts, rights[1:] + rights[:1], strict=True)
    ]
    await _submit(client, MATCH, fields)
    article = question_article((await client.get(f"/lessons/{SLUG}")).text, MATCH)
    assert "Not quite." in article
    assert "torch.cuda.is_available() → Is there a usable NVIDIA GPU?" in article


@pytest.mark.parametrize(
    ("question_id", "fields", "message"),
    [
        (MC, [], "Pick one of the options."),
        (MC, [("answer", "x")], "Pick one of the options."),
        (MC, [("answer", "1"), ("answer", "2")], "Pick one of the options."),
        (MC, [("answer", "9")], "Option indices run from 0 to 3."),
        (FILL, [], "This question has 1 blank(s)"),
        (MATCH, [], "Every value must be one of the right items' ids."),
    ],
)
async def test_an_incomplete_form_shows_why_and_records_nothing(
    client: httpx.AsyncClient,
    db: Database,
    question_id: str,
    fields: list[tuple[str, str]],
    message: str,
) -> None:
    name = await browser_signup(client)
    response = await _submit(client, question_id, fields)
    assert response.status_code == 303
    page = (await client.get(f"/lessons/{SLUG}")).text
    article = question_article(page, question_id)
    assert str(escape(message)) in article
    assert 'role="alert"' in article
    assert (await _question(db, question_id)).explanation_html not in page
    assert await _attempts(db, name) == []
    # The message is shown once.
    assert str(escape(message)) not in (await client.get(f"/lessons/{SLUG}")).text


async def test_form_answer_without_csrf_is_403(client: httpx.AsyncClient, db: Database) -> None:
    name = await browser_signup(client)
    response = await client.post(f"/lessons/{SLUG}/questions/{MC}", data={"answer": "3"})
    assert response.status_code == 403
    assert await _attempts(db, name) == []


async def test_anonymous_form_answer_goes_to_log_in(client: httpx.AsyncClient) -> None:
    response = await _submit(client, MC, [("answer", "3")])
    assert response.status_code == 303
    assert response.headers["location"] == f"/login?next=/lessons/{SLUG}"


@pytest.mark.parametrize(
    ("slug", "question_id"),
    [
        (SLUG, "no-such-question"),
        ("tensor-basics", MC),  # a real question, but of another lesson
    ],
)
async def test_form_answer_to_an_unknown_question_is_404(
    client: httpx.AsyncClient, slug: str, question_id: str
) -> None:
    await browser_signup(client)
    page = await client.get(f"/lessons/{slug}")
    response = await client.post(
        f"/lessons/{slug}/questions/{question_id}",
        data={"csrf_token": csrf_from(page.text), "answer": "3"},
        headers={"Accept": "text/html"},
    )
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("text/html")
    assert "Not found" in response.text


async def test_a_form_answer_with_a_file_instead_of_text_counts_as_empty(
    client: httpx.AsyncClient, db: Database
) -> None:
    name = await browser_signup(client)
    page = await client.get(f"/lessons/{SLUG}")
    response = await client.post(
        f"/lessons/{SLUG}/questions/{FILL}",
        data={"csrf_token": csrf_from(question_article(page.text, FILL))},
        files={"blank": ("blank.txt", b"to", "text/plain")},
    )
    assert response.status_code == 303
    assert "Not quite." in question_article((await client.get(f"/lessons/{SLUG}")).text, FILL)
    [attempt] = await _attempts(db, name)
    assert (attempt.answer, attempt.correct) == ([""], False)
