import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.content.loader import build_question
from app.db import Database
from app.models import Question
from app.quizzes.kinds import QuestionSource
from app.quizzes.kinds.fill_in import Blank, FillIn
from app.quizzes.kinds.multiple_choice import MultipleChoice


def write_one_lesson(root: Path, questions: list[dict[str, Any]]) -> Path:
    """A content folder at `root` of one track and one lesson, `one`, asking `questions`."""
    lesson = root / "lessons" / "one"
    lesson.mkdir(parents=True)
    (root / "tracks.yaml").write_text(
        yaml.safe_dump([{"slug": "t", "title": "T", "level": "beginner", "lessons": ["one"]}])
    )
    (lesson / "lesson.yaml").write_text(
        yaml.safe_dump({"slug": "one", "title": "One", "level": "beginner", "summary": "S"})
    )
    (lesson / "body.md").write_text("Body.\n")
    (lesson / "questions.yaml").write_text(yaml.safe_dump({"questions": questions}))
    return root


async def _add_question(db: Database, spec: QuestionSource, lesson_slug: str) -> str:
    """Put a question written for the test into a built-in lesson (rolled back afterwards),
    built by the same code that loads content files."""
    data = build_question(spec)
    async with db.sessionmaker() as session, session.begin():
        session.add(
            Question(
                id=data.id,
                lesson_slug=lesson_slug,
                position=100,
                kind=data.kind,
                prompt_html=data.prompt_html,
                public=data.public,
                key=data.key,
                explanation_html=data.explanation_html,
                tries=data.tries,
                retired=False,
            )
        )
    return data.id


async def add_question(db: Database, spec: QuestionSource, lesson_slug: str) -> Question:
    """`_add_question`, and the row it added."""
    question_id = await _add_question(db, spec, lesson_slug)
    async with db.sessionmaker() as session:
        return await session.get_one(Question, question_id)


def question_article(html: str, question_id: str) -> str:
    """The <article> of one question on a lesson page."""
    match = re.search(
        rf'<article class="question" id="q-{re.escape(question_id)}".*?</article>', html, re.S
    )
    assert match, f"question {question_id} is not on the page"
    return match.group(0)


@pytest.fixture
async def several_correct(db: Database) -> str:
    """A multiple-choice question with several correct options (options 0 and 2 of 4)."""
    spec = MultipleChoice(
        id="test-several-correct",
        kind="multiple_choice",
        prompt="Which of these make a tensor on the GPU?",
        options=[
            'torch.ones(3, device="cuda")',
            "torch.ones(3)",
            'torch.ones(3).to("cuda")',
            "torch.ones(3).numpy()",
        ],
        correct=[0, 2],
        multiple=True,
        explanation="Both create the tensor on the GPU; the others stay on the CPU.",
    )
    return await _add_question(db, spec, "tensor-basics")


@pytest.fixture
async def case_insensitive_regex(db: Database) -> str:
    """A fill-in question with a case-insensitive blank and a case-insensitive regex blank."""
    spec = FillIn(
        id="test-fill-in-options",
        kind="fill_in",
        prompt="Name the device and its index.",
        template='torch.device("____") is ____',
        blanks=[
            Blank(accepted=["CUDA", "gpu"], case_sensitive=False),
            Blank(accepted=[r"cuda:\d"], regex=True, case_sensitive=False, answer="cuda:0"),
        ],
        explanation="A device has a type and, for GPUs, an index.",
    )
    return await _add_question(db, spec, "tensor-basics")
