"""Answering questions from the lesson page's plain HTML forms (no JavaScript): a wrong
answer is told what is wrong and tries again; the answer is shown at the last try or on
asking ("Show the answer")."""

from __future__ import annotations

import json
import re
from html import unescape
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest
from markupsafe import escape
from sqlalchemy import select

from app.db import Database
from app.models import Question, QuestionAttempt, User
from app.models.attempt import QuestionReveal
from tests.app.quizzes.conftest import question_article
from tests.helpers import browser_signup, csrf_from, unique_name

SLUG = "gpu-support"
MC = "gpu-support-same-device"
FILL = "gpu-support-move-to"
MATCH = "gpu-support-match-terms"
PREDICT = "tensor-basics-predict-columns"


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


async def _reveals(db: Database, username: str) -> list[QuestionReveal]:
    async with db.sessionmaker() as session:
        return list(
            (
                await session.scalars(
                    select(QuestionReveal).join(User).where(User.username == username)
                )
            ).all()
        )


async def _reveal(client: httpx.AsyncClient, question_id: str) -> httpx.Response:
    page = await client.get(f"/lessons/{SLUG}")
    return await client.post(
        f"/lessons/{SLUG}/questions/{question_id}/reveal",
        data={"csrf_token": csrf_from(question_article(page.text, question_id))},
    )


async def test_a_wrong_answer_by_form_gets_another_try_then_the_correct_answer(
    client: httpx.AsyncClient, db: Database
) -> None:
    name = await browser_signup(client)
    response = await _submit(client, MC, [("answer", "0")])
    assert response.status_code == 303
    article = question_article((await client.get(f"/lessons/{SLUG}")).text, MC)
    assert "Not quite." in article
    assert "Not right: <code>A. PyTorch moves the CPU tensor to the GPU for you.</code>" in article
    assert "1 more try before the answer is shown." in article
    assert f'action="/lessons/{SLUG}/questions/{MC}/reveal"' in article
    assert "The answer:" not in article
    assert "It raises an error" not in article.split("</form>")[1]
    assert (await _question(db, MC)).explanation_html not in article

    await _submit(client, MC, [("answer", "1")])
    article = question_article((await client.get(f"/lessons/{SLUG}")).text, MC)
    assert "It raises an error; both must be on the same device." in article.split("The answer:")[1]
    assert (await _question(db, MC)).explanation_html in article
    assert 'class="reveal-form"' not in article and 'class="tries-left"' not in article
    assert [a.correct for a in await _attempts(db, name)] == [False, False]
    assert await _reveals(db, name) == []  # shown at the last try: not asked for


async def test_show_the_answer_by_form_shows_it_and_is_recorded(
    client: httpx.AsyncClient, db: Database
) -> None:
    name = await browser_signup(client)
    await _submit(client, MC, [("answer", "0")])
    response = await _reveal(client, MC)
    assert response.status_code == 303
    assert response.headers["location"] == f"/lessons/{SLUG}#q-{MC}"
    article = question_article((await client.get(f"/lessons/{SLUG}")).text, MC)
    assert "Not quite." in article
    assert "It raises an error; both must be on the same device." in article.split("The answer:")[1]
    assert (await _question(db, MC)).explanation_html in article
    assert 'class="reveal-form"' not in article
    [reveal] = await _reveals(db, name)
    assert reveal.question_id == MC
    # Asking is not an answer; every answer is still recorded, and a right one is right.
    await _submit(client, MC, [("answer", "3")])
    assert [a.correct for a in await _attempts(db, name)] == [False, True]
    assert "Correct." in question_article((await client.get(f"/lessons/{SLUG}")).text, MC)


async def test_show_the_answer_before_answering_says_to_answer_first(
    client: httpx.AsyncClient, db: Database
) -> None:
    name = await browser_signup(client)
    assert (await _reveal(client, FILL)).status_code == 303
    article = question_article((await client.get(f"/lessons/{SLUG}")).text, FILL)
    assert "Answer the question before asking for its answer." in article
    assert "The answer:" not in article
    assert await _reveals(db, name) == []


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
    assert '<p class="wrong-parts">Not right: <code>cuda</code></p>' in article
    assert "The answer:" not in article
    await _submit(client, FILL, [("blank", "cpu")])
    article = question_article((await client.get(f"/lessons/{SLUG}")).text, FILL)
    assert "<code>x = x.[to](device)</code>" in article.split("The answer:")[1]
    assert 'value="cpu"' in article


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


async def test_a_wrong_matching_by_form_says_which_rows_are_wrong(
    client: httpx.AsyncClient, db: Database
) -> None:
    await browser_signup(client)
    question = await _question(db, MATCH)
    lefts = [item["id"] for item in question.public["left"]]
    rights = [question.key["pairs"][left] for left in lefts]
    # The first two rows swapped, the others right.
    fields = [
        (f"match-{left}", right)
        for left, right in zip(lefts, [rights[1], rights[0], *rights[2:]], strict=True)
    ]
    await _submit(client, MATCH, fields)
    article = question_article((await client.get(f"/lessons/{SLUG}")).text, MATCH)
    assert "Not quite." in article
    wrong = re.search(r'<p class="wrong-parts">(.*?)</p>', article, re.S)
    assert wrong
    assert wrong[1] == (
        "Not right: <code>torch.cuda.is_available() → Move to the chosen device</code>, "
        "<code>.to(device) → Is there a usable NVIDIA GPU?</code>"
    )
    assert "The answer:" not in article
    await _submit(client, MATCH, fields)
    article = question_article((await client.get(f"/lessons/{SLUG}")).text, MATCH)
    answer = article.split("The answer:")[1]
    assert "torch.cuda.is_available() → Is there a usable NVIDIA GPU?" in answer


@pytest.mark.parametrize(
    ("question_id", "fields", "message"),
    [
        (MC, [], "Pick one of the options."),
        (MC, [("answer", "x")], "Pick one of the options."),
        (MC, [("answer", "1"), ("answer", "2")], "Pick one of the options."),
        (MC, [("answer", "9")], "Option indices run from 0 to 3."),
        (FILL, [], "This question has 1 blank(s)"),
        (FILL, [("blank", "")], "Answer every part first: blank 1 is empty."),
        (FILL, [("blank", "   ")], "Answer every part first: blank 1 is empty."),
        (
            MATCH,
            [],
            "Answer every part first: choose a match for torch.cuda.is_available().",
        ),
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


async def test_anonymous_form_answer_is_kept_through_signing_up(
    client: httpx.AsyncClient, db: Database
) -> None:
    """Without JavaScript the answer cannot wait in the browser: it waits on the server,
    and the way back from log-in (or sign-up) carries its token (issue 11, point 11)."""
    prediction = "tensor([1., 2.])\n" * 100  # far longer than a log-in form's `next`
    response = await _submit(client, FILL, [("blank", "to")])
    assert response.status_code == 303
    location = urlsplit(response.headers["location"])
    assert location.path == "/login"
    query = parse_qs(location.query)
    assert query["why"] == ["answer"]
    back = query["next"][0]
    assert re.fullmatch(rf"/lessons/{SLUG}\?pending=[\w-]{{40,64}}#q-{FILL}", back), back
    login = await client.get(response.headers["location"])
    assert "to check your answer. It is kept" in login.text
    assert f"/signup?{urlencode({'next': back, 'why': 'answer'})}" in unescape(login.text)

    # A stranger's guess, or another lesson's page, shows nothing kept.
    token = parse_qs(urlsplit(back).query)["pending"][0]
    for address in (f"/lessons/{SLUG}?pending=guess", f"/lessons/tensor-basics?pending={token}"):
        assert "pending-answer" not in (await client.get(address)).text

    page = await client.get("/signup")
    signed_up = await client.post(
        "/signup",
        data={
            "username": (name := unique_name()),
            "password": "correct horse",
            "csrf_token": csrf_from(page.text),
            "next": back,
            "why": "answer",
        },
    )
    assert signed_up.status_code == 303 and signed_up.headers["location"] == back
    article = question_article((await client.get(back)).text, FILL)
    assert 'value="to"' in article
    assert "Your answer from before you logged in is back. Press Check." in article
    assert 'class="alert pending-answer" role="status"' in article
    assert await _attempts(db, name) == []  # kept, not checked: the student presses Check

    await _submit(client, FILL, [("blank", "to")])
    assert [a.answer for a in await _attempts(db, name)] == [["to"]]
    # Checked: the way back now shows the student's own answer, not the kept one again.
    assert "pending-answer" not in (await client.get(back)).text

    # Any length is kept (predict-the-output answers run to thousands of characters).
    await client.post("/logout", data={"csrf_token": csrf_from((await client.get("/")).text)})
    predicted = await _submit(client, PREDICT, [("printed", prediction)], slug="tensor-basics")
    back = parse_qs(urlsplit(predicted.headers["location"]).query)["next"][0]
    assert len(back) < 200
    kept = question_article((await client.get(back)).text, PREDICT)
    assert escape(prediction.strip()) in kept


async def test_anonymous_form_answer_with_an_empty_part_is_not_kept(
    client: httpx.AsyncClient,
) -> None:
    response = await _submit(client, FILL, [("blank", "  ")])
    assert response.status_code == 303
    # Nothing to keep (it could not be checked anyway): no promise that it is kept.
    assert response.headers["location"] == "/login?" + urlencode(
        {"next": f"/lessons/{SLUG}#q-{FILL}"}
    )


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
    article = question_article((await client.get(f"/lessons/{SLUG}")).text, FILL)
    assert "Answer every part first: blank 1 is empty." in article
    assert await _attempts(db, name) == []


async def test_the_feedback_words_are_in_turkish(client: httpx.AsyncClient, db: Database) -> None:
    await client.get("/?lang=tr")
    await browser_signup(client)
    await _submit(client, FILL, [("blank", "")])
    article = question_article((await client.get(f"/lessons/{SLUG}")).text, FILL)
    assert "Önce her kısmı cevaplayın: 1. boşluk boş." in article
    await _submit(client, FILL, [("blank", "cuda")])
    article = question_article((await client.get(f"/lessons/{SLUG}")).text, FILL)
    assert "Doğru değil: <code>cuda</code>" in article
    assert "Cevap gösterilmeden önce 1 deneme hakkınız daha var." in article
    assert "Cevabı göster" in article
    # The script's words, handed over by the partial.
    words = re.search(r"data-feedback-words='([^']*)'", article)
    assert words
    assert json.loads(unescape(words[1])) == {
        "not_right": "Doğru değil:",
        "show_answer": "Cevabı göster",
        "tries_left": {"1": "Cevap gösterilmeden önce 1 deneme hakkınız daha var."},
    }
