"""Questions as the lesson page shows them: with the student's last answer and, once they
have answered, whether it was right, the explanation and the correct answer."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncSession

from app.i18n import DEFAULT_LANGUAGE
from app.models import Question, QuestionAttempt
from app.quizzes import service
from app.quizzes.kinds import AnyKind, Feedback, kind_of


@dataclass
class QuestionView:
    """What a question's partial (`kind.template`) draws: `public`, the student's last
    answer `given` (None if none, or if it no longer fits the question), `attempt`.
    `typed`: an answer as sent but not taken (too many at once), shown again as `given`.
    Its texts are in `language`, in English where they are not translated."""

    question: Question
    attempt: QuestionAttempt | None
    typed: object = None
    language: str = DEFAULT_LANGUAGE

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
    def explanation_html(self) -> str:
        return str(self.question.in_language("explanation_html", self.language))

    @property
    def answered(self) -> bool:
        return self.attempt is not None

    @cached_property
    def given(self) -> BaseModel | None:
        if self.typed is not None:
            return self.kind.recorded_answer(self.typed)
        return self.kind.recorded_answer(self.attempt.answer) if self.attempt else None

    def feedback(self) -> Feedback:
        """What the last answer, if wrong, is told besides the right answer (its kind's)."""
        if self.attempt is None or self.attempt.correct:
            return Feedback()
        return self.kind.feedback_recorded(
            self.question.in_language("public", self.language),
            self.question.in_language("key", self.language),
            self.attempt.answer,
        )

    def correct_answer_text(self) -> list[str]:
        """The correct answer in words, only ever called once the student has answered."""
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
    if user_id is None or not questions:
        return [QuestionView(q, None, language=language) for q in questions]
    last = await service.last_answers(
        session=session, user_id=user_id, lesson_slug=questions[0].lesson_slug
    )
    typed = typed or {}
    return [QuestionView(q, last.get(q.id), typed.get(q.id), language) for q in questions]
