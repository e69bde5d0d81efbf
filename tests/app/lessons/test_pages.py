"""Server-rendered catalog and lesson pages."""

from __future__ import annotations

import re

import httpx
import pytest
import yaml
from sqlalchemy import select

from app.config import REPO_ROOT
from app.db import Database
from app.models import Exercise, Question
from tests.helpers import browser_signup

HTML = {"Accept": "text/html"}
LESSONS = ["tensor-basics", "tensors-on-the-gpu", "gpu-support"]


async def test_catalog_lists_the_three_levels_in_order(client: httpx.AsyncClient) -> None:
    page = await client.get("/", headers=HTML)
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    levels = re.findall(r'<span class="level level-\w+">Level (\d) of 3: (\w+)</span>', page.text)
    assert levels == [("1", "Beginner"), ("2", "Intermediate"), ("3", "Advanced")]
    positions = [page.text.index(f'href="/lessons/{slug}"') for slug in LESSONS]
    assert positions == sorted(positions)
    for title in ("Tensor basics", "PyTorch tensors on the GPU", "GPU support"):
        assert title in page.text


async def test_catalog_shows_progress_to_a_signed_in_student(client: httpx.AsyncClient) -> None:
    anonymous = await client.get("/")
    assert 'class="progress"' not in anonymous.text
    await browser_signup(client)
    page = await client.get("/")
    assert page.status_code == 200
    # One bar per lesson of the course as tracks.yaml lists it.
    listed = yaml.safe_load((REPO_ROOT / "exercises" / "tracks.yaml").read_text())["tracks"]
    assert page.text.count('class="progress"') == sum(len(t["lessons"]) for t in listed)
    for slug in LESSONS:
        written = (REPO_ROOT / "exercises" / "lessons" / slug / "questions.yaml").read_text()
        assert f"0/{written.count('kind: ')} questions" in page.text, slug


async def test_lesson_page_renders_body_code_outputs_and_predict_blocks(
    client: httpx.AsyncClient,
) -> None:
    page = await client.get("/lessons/tensor-basics", headers=HTML)
    assert page.status_code == 200
    html = page.text
    assert "<h1>Tensor basics</h1>" in html
    assert '<div class="body">' in html
    # Highlighted code: Pygments spans inside a highlight block, with its file name.
    # Focusable: a block wider than the page scrolls, and keyboard users must reach it.
    assert '<pre class="highlight" tabindex="0"><code class="language-python">' in html
    assert re.search(r'<span class="(kn|n|nn)">torch</span>', html)
    assert '<figcaption class="filename">create.py</figcaption>' in html
    # Printed output, and a predict-then-reveal block that starts folded.
    assert '<pre class="output" aria-label="Output" tabindex="0">' in html
    assert re.search(
        r'<details class="predict"><summary>Predict the output, then reveal it</summary>'
        r'<pre class="output"',
        html,
    )
    assert "<details open" not in html
    # Check yourself, folded too.
    assert '<section class="check-yourself"><h2>Check yourself</h2>' in html


@pytest.mark.parametrize("slug", LESSONS)
async def test_lesson_page_has_a_form_for_every_question(
    client: httpx.AsyncClient, db: Database, slug: str
) -> None:
    page = await client.get(f"/lessons/{slug}")
    assert page.status_code == 200
    async with db.sessionmaker() as session:
        questions = (
            await session.scalars(select(Question).where(Question.lesson_slug == slug))
        ).all()
        exercises = (
            await session.scalars(select(Exercise).where(Exercise.lesson_slug == slug))
        ).all()
    assert questions
    for question in questions:
        form = re.search(
            rf'<form method="post" action="/lessons/{slug}/questions/{question.id}"'
            r".*?</form>",
            page.text,
            re.S,
        )
        assert form, question.id
        # The form's own CSRF field carries the session's token.
        assert re.search(r'name="csrf_token" value="[^"]{16,}"', form.group(0)), question.id
        if question.kind == "multiple_choice":
            # Radio buttons, or checkboxes where several options may be right.
            choices = re.findall(r'type="(?:radio|checkbox)" name="answer"', form.group(0))
            assert len(choices) == len(question.public["options"])
        elif question.kind == "fill_in":
            assert form.group(0).count('name="blank"') == question.public["blanks"]
        elif question.kind == "ordering":
            for line in question.public["lines"]:
                assert f'name="position-{line["id"]}"' in form.group(0)
        elif question.kind == "predict_output":
            assert 'name="printed"' in form.group(0)
        else:
            for item in question.public["left"]:
                assert f'name="match-{item["id"]}"' in form.group(0)
                assert f'<label for="m-{question.id}-{item["id"]}">' in form.group(0)
        # Nothing of the answer before the student has answered.
        assert question.explanation_html not in page.text
    for exercise in exercises:
        assert f'id="exercise-{exercise.id}"' in page.text
        assert exercise.solution_code.strip() not in page.text


async def test_lesson_page_links_prerequisites_and_follow_ups(client: httpx.AsyncClient) -> None:
    # What the content says: this lesson's prerequisites, and the lessons that list it as one.
    lessons = {
        path.parent.name: yaml.safe_load(path.read_text())
        for path in (REPO_ROOT / "exercises" / "lessons").glob("*/lesson.yaml")
    }
    slug = "tensors-on-the-gpu"
    before = lessons[slug].get("prerequisites", [])
    after = [other for other, spec in lessons.items() if slug in spec.get("prerequisites", [])]
    assert before and after
    page = await client.get(f"/lessons/{slug}")
    prereqs = re.search(r'<nav class="prereqs".*?</nav>', page.text, re.S)
    assert prereqs and all(f'href="/lessons/{s}"' in prereqs.group(0) for s in before)
    follow_ups = re.search(r'<nav class="next".*?</nav>', page.text, re.S)
    assert follow_ups and all(f'href="/lessons/{s}"' in follow_ups.group(0) for s in after)


async def test_anonymous_lesson_page_invites_to_log_in(client: httpx.AsyncClient) -> None:
    page = await client.get("/lessons/gpu-support")
    assert 'href="/login?next=/lessons/gpu-support"' in page.text


@pytest.mark.parametrize("signed_in", [False, True], ids=["anonymous", "signed-in"])
@pytest.mark.parametrize("path", ["/lessons/no-such-lesson", "/lessons/GPU-SUPPORT", "/nowhere"])
async def test_unknown_page_is_a_404_html_page(
    client: httpx.AsyncClient, signed_in: bool, path: str
) -> None:
    if signed_in:
        await browser_signup(client)
    response = await client.get(path, headers=HTML)
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("text/html")
    assert "<h1>Not found</h1>" in response.text
    assert 'href="/"' in response.text


async def test_unknown_page_for_an_api_client_is_json(client: httpx.AsyncClient) -> None:
    response = await client.get("/lessons/no-such-lesson", headers={"Accept": "application/json"})
    assert response.status_code == 404
    assert response.json() == {"detail": "Lesson not found."}


async def test_pages_work_for_a_signed_in_student(client: httpx.AsyncClient) -> None:
    name = await browser_signup(client)
    for path in ("/", *(f"/lessons/{slug}" for slug in LESSONS), "/account"):
        page = await client.get(path, headers=HTML)
        assert page.status_code == 200, path
        assert name in page.text, path


async def test_static_assets_are_served(client: httpx.AsyncClient) -> None:
    for asset in ("style.css", "highlight.css"):
        response = await client.get(f"/static/{asset}")
        assert response.status_code == 200, asset
    page = await client.get("/", headers=HTML)
    assert re.search(r'<script src="[^"]*/static/dist/app\.js" defer></script>', page.text)
    if (REPO_ROOT / "app/static/dist/app.js").is_file():  # built by `make frontend`
        assert (await client.get("/static/dist/app.js")).status_code == 200


async def test_healthz_and_openapi(client: httpx.AsyncClient) -> None:
    assert (await client.get("/healthz")).json() == {"status": "ok"}
    paths = (await client.get("/openapi.json")).json()["paths"]
    for path in (
        "/api/auth/register",
        "/api/auth/token",
        "/api/me",
        "/api/tracks",
        "/api/lessons/{slug}",
        "/api/questions/{question_id}/answers",
        "/api/me/progress",
    ):
        assert path in paths
