"""Questions as the lesson page shows them: with the student's last answer and, once they
have answered, whether it was right, the explanation and the correct answer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Question, QuestionAttempt
from app.quizzes import service


@dataclass
class QuestionView:
    question: Question
    attempt: QuestionAttempt | None

    @property
    def answered(self) -> bool:
        return self.attempt is not None

    @property
    def given(self) -> Any:
        return self.attempt.answer if self.attempt else None

    def correct_answer_text(self) -> list[str]:
        """The correct answer in words, only ever called once the student has answered."""
        public, key = self.question.public, self.question.key
        if self.question.kind == "multiple_choice":
            return [public["options"][i] for i in key["correct"]]
        if self.question.kind == "fill_in":
            return [b.get("answer") or b["accepted"][0] for b in key["blanks"]]
        right = {item["id"]: item["text"] for item in public["right"]}
        return [f"{item['text']} → {right[key['pairs'][item['id']]]}" for item in public["left"]]

    def template_parts(self) -> list[str]:
        return str(self.question.public.get("template", "")).split("____")


async def question_views(
    *, session: AsyncSession, user_id: int | None, questions: list[Question]
) -> list[QuestionView]:
    if user_id is None or not questions:
        return [QuestionView(q, None) for q in questions]
    last = await service.last_answers(
        session=session, user_id=user_id, lesson_slug=questions[0].lesson_slug
    )
    return [QuestionView(q, last.get(q.id)) for q in questions]
