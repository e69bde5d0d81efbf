"""When a student is shown a question's right answer: one rule for every kind of question.

A wrong answer is told what is wrong with it (its kind's `Feedback` but for what gives the
answer away: which parts are wrong, how far it is from a right one) and what the content says
of what was chosen, and the student tries again. The right answer, the question's
explanation and the expected output beside a predicted one wait until the question is
*revealed* for that student: answered right once, or its tries (`tries` in questions.yaml,
default 2) all used by wrong answers, or the student asked ("Show the answer", recorded for
their teachers). The API's result, the lesson page without JavaScript and the script all
draw what `result` gives."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from app.models import Question
from app.quizzes.kinds import kind_of
from app.quizzes.kinds.base import DEFAULT_TRIES
from app.quizzes.schemas import AnswerResult

__all__ = ["DEFAULT_TRIES", "Standing", "result"]


@dataclass(frozen=True)
class Standing:
    """Where one student stands with one question: its `tries`, their wrong answers so far,
    whether one answer was right, whether they asked to be shown the answer."""

    tries: int = DEFAULT_TRIES
    wrong: int = 0
    right: bool = False
    asked: bool = False

    @property
    def revealed(self) -> bool:
        return self.right or self.asked or self.wrong >= self.tries

    @property
    def tries_left(self) -> int:
        """Wrong answers the student may still give before the answer is shown (0 once it
        is)."""
        return 0 if self.revealed else self.tries - self.wrong

    def answered(self, correct: bool) -> Standing:
        """The standing after one more answer."""
        return replace(self, wrong=self.wrong + (not correct), right=self.right or correct)


def result(
    question: Question, language: str, answer: Any, correct: bool, standing: Standing
) -> AnswerResult:
    """What a student is told of their answer `answer` (as recorded) to `question`, in
    `language`, standing as they do now (after it)."""
    kind = kind_of(question.kind)
    public, key = question.in_language("public", language), question.in_language("key", language)
    revealed = standing.revealed
    if correct:
        explanation = question.in_language("explanation_html", language)
        return AnswerResult(
            correct=True,
            explanation_html=explanation,
            correct_answer=kind.correct_answer_stored(public, key),
            tries_left=standing.tries_left,
            revealed=revealed,
        )
    feedback = kind.feedback_recorded(public, key, answer)
    shown = feedback if revealed else feedback.before_reveal()
    said = [kind.explain_choice_recorded(public, key, answer)]
    if revealed:
        said.append(question.in_language("explanation_html", language))
    return AnswerResult(
        correct=False,
        explanation_html=" ".join(text for text in said if text),
        correct_answer=kind.correct_answer_stored(public, key) if revealed else None,
        tries_left=standing.tries_left,
        revealed=revealed,
        wrong_parts=shown.wrong_parts,
        distance=shown.distance,
        rows=shown.rows,
    )
