"""One student's work on one lesson, in time order: every answer, every submission, every
hint opened, every exercise given up on and every answer the student asked to be shown.
Identical resubmissions in a row (same exercise, mode, code and verdict) collapse into one
entry that says how many times."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.classes.answers import AnswerView, correct_answer, describe_answer, plain
from app.i18n import current_language
from app.lessons.hints import opened_by
from app.models import (
    Exercise,
    HintOpening,
    Question,
    QuestionAttempt,
    RevealReason,
    SolutionReveal,
    Submission,
)
from app.models.attempt import QuestionReveal


@dataclass
class AnswerEvent:
    at: datetime
    attempt: QuestionAttempt
    question: Question
    view: AnswerView
    number: int  # the question's number in the lesson (1-based)

    kind = "answer"

    @property
    def prompt(self) -> str:
        return plain(self.question.in_language("prompt_html", current_language()), 200)

    @property
    def correct_answer(self) -> list[str]:
        return correct_answer(self.question)


@dataclass
class SubmissionEvent:
    at: datetime
    submission: Submission
    exercise: Exercise
    # A run of identical resubmissions shown once: how many, and when the last was sent.
    repeats: int = 1
    last_at: datetime | None = None

    kind = "submission"

    @property
    def sameness(self) -> tuple[object, ...]:
        """Equal for two submissions of the same code with the same outcome (down to each
        run's verdict and, for try-outs, whether the output matched)."""
        s = self.submission
        code = hashlib.sha256(s.code.encode()).hexdigest()
        runs = tuple(
            (run.get("device"), run.get("verdict"), run.get("output_matches")) for run in s.runs
        )
        return (s.exercise_id, str(s.mode), str(s.status), s.verdict, code, runs)


@dataclass
class HintEvent:
    at: datetime
    opening: HintOpening
    exercise: Exercise

    kind = "hint"

    @property
    def number(self) -> int:
        return self.opening.hint_index + 1


@dataclass
class GaveUpEvent:
    """The student gave up on an exercise and was shown its sample solution."""

    at: datetime
    reveal: SolutionReveal
    exercise: Exercise

    kind = "gave_up"


@dataclass
class AnswerRequestedEvent:
    """The student asked to be shown a question's answer ("Show the answer") before they
    had answered it right or used its tries."""

    at: datetime
    reveal: QuestionReveal
    question: Question
    number: int  # the question's number in the lesson (1-based)

    kind = "answer_requested"


Event = AnswerEvent | SubmissionEvent | HintEvent | GaveUpEvent | AnswerRequestedEvent
QuestionEvents = (AnswerEvent, AnswerRequestedEvent)  # about a question, not an exercise


async def lesson_events(*, session: AsyncSession, student_id: int, lesson_slug: str) -> list[Event]:
    """Oldest first. Answers to questions since retired from the lesson are included."""
    questions = {
        q.id: q
        for q in (
            await session.scalars(
                select(Question)
                .where(Question.lesson_slug == lesson_slug)
                .order_by(Question.position)
            )
        ).all()
    }
    numbers = {qid: index for index, qid in enumerate(questions, start=1)}
    exercises = {
        e.id: e
        for e in (
            await session.scalars(select(Exercise).where(Exercise.lesson_slug == lesson_slug))
        ).all()
    }
    events: list[Event] = []
    if questions:
        attempts = await session.scalars(
            select(QuestionAttempt).where(
                QuestionAttempt.user_id == student_id,
                QuestionAttempt.question_id.in_(list(questions)),
            )
        )
        for attempt in attempts:
            question = questions[attempt.question_id]
            events.append(
                AnswerEvent(
                    attempt.created_at,
                    attempt,
                    question,
                    describe_answer(question, attempt.answer),
                    numbers[question.id],
                )
            )
        requests = await session.scalars(
            select(QuestionReveal).where(
                QuestionReveal.user_id == student_id,
                QuestionReveal.question_id.in_(list(questions)),
            )
        )
        for request in requests:
            question = questions[request.question_id]
            events.append(
                AnswerRequestedEvent(request.created_at, request, question, numbers[question.id])
            )
    if exercises:
        submissions = await session.scalars(
            select(Submission).where(
                Submission.user_id == student_id, Submission.exercise_id.in_(list(exercises))
            )
        )
        for submission in submissions:
            events.append(
                SubmissionEvent(
                    submission.created_at, submission, exercises[submission.exercise_id]
                )
            )
    for opening in await opened_by(
        session=session, user_id=student_id, exercise_ids=list(exercises)
    ):
        events.append(HintEvent(opening.opened_at, opening, exercises[opening.exercise_id]))
    if exercises:
        reveals = await session.scalars(
            select(SolutionReveal).where(
                SolutionReveal.user_id == student_id,
                SolutionReveal.exercise_id.in_(list(exercises)),
                SolutionReveal.reason == RevealReason.GAVE_UP,
            )
        )
        for reveal in reveals:
            events.append(GaveUpEvent(reveal.created_at, reveal, exercises[reveal.exercise_id]))
    events.sort(key=_order)
    return events


def _order(event: Event) -> tuple[datetime, int, int]:
    if isinstance(event, AnswerEvent):
        return (event.at, 0, event.attempt.id)
    if isinstance(event, SubmissionEvent):
        return (event.at, 1, event.submission.id)
    if isinstance(event, HintEvent):
        return (event.at, 2, event.opening.id)
    if isinstance(event, AnswerRequestedEvent):
        return (event.at, 4, event.reveal.id)
    return (event.at, 3, event.reveal.id)


def exercises_in(events: list[Event]) -> list[Exercise]:
    """The exercises the timeline speaks of, in the lesson's order: the filter's choices."""
    found = {e.exercise.id: e.exercise for e in events if not isinstance(e, QuestionEvents)}
    return sorted(found.values(), key=lambda exercise: exercise.position)


def filter_events(events: list[Event], *, exercise: str, verdict: str) -> list[Event]:
    """The timeline narrowed to one exercise (its submissions and hints) and/or one
    submission verdict (`Verdict`'s values); an empty choice keeps everything."""
    kept = events
    if exercise:
        kept = [e for e in kept if not isinstance(e, QuestionEvents) and e.exercise.id == exercise]
    if verdict:
        kept = [
            e for e in kept if isinstance(e, SubmissionEvent) and e.submission.verdict == verdict
        ]
    return kept


def collapse_repeats(events: list[Event]) -> list[Event]:
    """Consecutive submissions of the same code with the same outcome become one entry
    (the first, with `repeats` and the last one's time); anything in between (an answer, a
    hint, other code) ends the run."""
    kept: list[Event] = []
    for event in events:
        previous = kept[-1] if kept else None
        if (
            isinstance(event, SubmissionEvent)
            and isinstance(previous, SubmissionEvent)
            and previous.sameness == event.sameness
        ):
            kept[-1] = replace(previous, repeats=previous.repeats + 1, last_at=event.at)
        else:
            kept.append(event)
    return kept
