"""Questions as the lesson page shows them: with the student's last answer and, once they
have answered, what they are told of it (app/quizzes/reveal.py: whether it was right, what is
wrong with it, and, once revealed, the right answer and the explanation)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncSession

from app.i18n import DEFAULT_LANGUAGE
from app.models import Question, QuestionAttempt
from app.quizzes import service
from app.quizzes.kinds import AnyKind, kind_of
from app.quizzes.reveal import Standing, result
from app.quizzes.schemas import AnswerResult


@dataclass
class QuestionView:
    """What a question's partial (`kind.template`) draws: `public`, the student's last
    answer `given` (None if none, or if it no longer fits the question), `attempt`, and
    where the student stands (`standing`: tries, reveal).
    `typed`: an answer as sent but not taken (too many at once), shown again as `given`.
    Its texts are in `language`, in English where they are not translated."""

    question: Question
    attempt: QuestionAttempt | None
    typed: object = None
    language: str = DEFAULT_LANGUAGE
    standing: Standing = field(default_factory=Standing)

    @cached_property
    def kind(self) -> AnyKind:
        return kind_of(self.question.kind)

    @cached_property
    def public(self) -> BaseModel:
        return self.kind.public_of(self.question.in_language("public", self.language))

    @property
    def prompt_html(self) -> str:
        return str(self.question.in_language("prompt_html", self.language))

    @property
    def answered(self) -> bool:
        return self.attempt is not None

    @cached_property
    def given(self) -> BaseModel | None:
        if self.typed is not None:
            return self.kind.recorded_answer(self.typed)
        return self.kind.recorded_answer(self.attempt.answer) if self.attempt else None

    @cached_property
    def result(self) -> AnswerResult | None:
        """What the last answer is told, as the API told it (None before any)."""
        if self.attempt is None:
            return None
        return result(
            self.question, self.language, self.attempt.answer, self.attempt.correct, self.standing
        )

    @property
    def wrong_parts(self) -> list[int | str]:
        """The parts of the last answer that are wrong (by where they are in it)."""
        return (self.result.wrong_parts if self.result else None) or []

    def wrong_in_words(self) -> list[str]:
        """The wrong parts of the last answer, in words, as the student gave them."""
        if self.attempt is None or not self.wrong_parts:
            return []
        return self.kind.describe_wrong_recorded(
            self.question.in_language("public", self.language),
            self.attempt.answer,
            self.wrong_parts,
        )

    def correct_answer_text(self) -> list[str]:
        """The correct answer in words, only ever called once it is revealed."""
        return self.kind.correct_in_words(
            self.question.in_language("public", self.language),
            self.question.in_language("key", self.language),
        )


async def question_views(
    *,
    session: AsyncSession,
    user_id: int | None,
    questions: list[Question],
    typed: dict[str, object] | None = None,
    language: str = DEFAULT_LANGUAGE,
) -> list[QuestionView]:
    """`typed`: question id -> an answer sent but not taken, shown instead of the last."""
    typed = typed or {}
    if user_id is None or not questions:
        return [QuestionView(q, None, typed.get(q.id), language) for q in questions]
    last, standings = await service.lesson_answers(
        session=session, user_id=user_id, questions=questions
    )
    return [
        QuestionView(q, last.get(q.id), typed.get(q.id), language, standings[q.id])
        for q in questions
    ]
