"""The progress page (/progress): one signed-in person's way through the course in one place.
Where to carry on (the next unfinished exercise or question), what they did last, every
lesson's progress, and their classes: a student's assignments with due dates, a teacher's
classes with their progress grids.

Made from the queries the other pages already use: the catalog's per-lesson progress
(app/lessons/progress.py), the lesson page's answers and passed exercises, the home page's
assignments (app/classes/home.py) and the classes list."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from fastapi import APIRouter, Request
from fastapi.responses import Response
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.auth.dependencies import OptionalUser
from app.classes import service as classes
from app.classes.due import DONE_STATES
from app.classes.home import HomeClass, student_home
from app.classes.reports.grid import STATE_LABELS, STATE_SYMBOLS
from app.classes.service import ClassSummary
from app.db import SessionDep
from app.lessons import catalog, service
from app.lessons.progress import lesson_progress
from app.lessons.schemas import LessonProgress
from app.models import (
    Lesson,
    QuestionAttempt,
    RevealReason,
    Role,
    Submission,
    SubmissionMode,
    Track,
    User,
    utcnow,
)
from app.quizzes.service import last_answers
from app.submissions.service import list_own_submissions, revealed
from app.web.login import LoginRequired
from app.web.templating import render

router = APIRouter(include_in_schema=False)


@dataclass
class LessonRow:
    lesson: Lesson
    progress: LessonProgress

    @property
    def total(self) -> int:
        return self.progress.questions_total + self.progress.exercises_total

    @property
    def done(self) -> int:
        return self.progress.questions_correct + self.progress.exercises_passed

    @property
    def percent(self) -> int:
        return round(100 * self.done / self.total) if self.total else 0


@dataclass
class TrackRows:
    track: Track
    rows: list[LessonRow]


@dataclass
class LastStep:
    """The newest thing the person did: an answer, a graded submission or a try-out."""

    kind: str  # "answer", "submission" or "run"
    lesson: Lesson
    at: datetime
    anchor: str
    exercise_title: str | None = None
    correct: bool | None = None  # an answer's
    submission: Submission | None = None


@dataclass
class NextStep:
    """Where the Continue button goes: the first unfinished item of a lesson."""

    lesson: Lesson
    anchor: str  # "" for the top of the lesson
    exercise_title: str | None = None
    question_number: int | None = None
    started: bool = False  # anything done in this lesson yet


async def _last_step(
    *, session: AsyncSession, user_id: int, lessons: dict[str, Lesson], language: str
) -> LastStep | None:
    attempt = await session.scalar(
        select(QuestionAttempt)
        .where(QuestionAttempt.user_id == user_id)
        .order_by(QuestionAttempt.id.desc())
        .limit(1)
    )
    newest = await list_own_submissions(session=session, user_id=user_id, limit=1)
    submission = newest[0] if newest else None
    steps: list[LastStep] = []
    if attempt is not None:
        question = await catalog.live_question(session=session, question_id=attempt.question_id)
        if question is not None and question.lesson_slug in lessons:
            steps.append(
                LastStep(
                    "answer",
                    lessons[question.lesson_slug],
                    attempt.created_at,
                    f"#q-{question.id}",
                    correct=attempt.correct,
                )
            )
    if submission is not None:
        exercise = await catalog.live_exercise(session=session, exercise_id=submission.exercise_id)
        if exercise is not None and exercise.lesson_slug in lessons:
            steps.append(
                LastStep(
                    "run" if submission.mode == SubmissionMode.RUN else "submission",
                    lessons[exercise.lesson_slug],
                    submission.created_at,
                    f"#exercise-{exercise.id}",
                    exercise_title=exercise.in_language("title", language),
                    submission=submission,
                )
            )
    return max(steps, key=lambda step: step.at, default=None)


def _lesson_to_continue(
    rows: list[LessonRow], last: LastStep | None, assigned: list[str]
) -> LessonRow | None:
    """The lesson last worked in while it is unfinished; else the next unfinished one after
    it in course order (then from the start); with nothing done yet, the first unfinished
    assignment (soonest due), else the course's first unfinished lesson."""
    unfinished = [row for row in rows if row.total and not row.progress.completed]
    if not unfinished:
        return None
    if last is None:
        by_slug = {row.lesson.slug: row for row in unfinished}
        for slug in assigned:
            if slug in by_slug:
                return by_slug[slug]
        return unfinished[0]
    order = [row.lesson.slug for row in rows]
    here = order.index(last.lesson.slug) if last.lesson.slug in order else -1
    after = [row for row in unfinished if order.index(row.lesson.slug) >= here]
    return (after or unfinished)[0]


async def _next_step(
    *, session: AsyncSession, user_id: int, row: LessonRow, language: str
) -> NextStep:
    """The first exercise not passed, else the first question whose latest answer is not
    right, in the order the lesson page shows them."""
    lesson = row.lesson
    started = row.done > 0
    detail = await service.get_lesson(session=session, slug=lesson.slug)
    if detail is None:  # retired meanwhile
        return NextStep(lesson, "", started=started)
    reasons = await revealed(
        session=session, user_id=user_id, exercise_ids=[e.id for e in detail.exercises]
    )
    for exercise in detail.exercises:
        if reasons.get(exercise.id) != RevealReason.PASSED:
            return NextStep(
                lesson,
                f"#exercise-{exercise.id}",
                exercise_title=exercise.in_language("title", language),
                started=started,
            )
    answers = await last_answers(session=session, user_id=user_id, lesson_slug=lesson.slug)
    for number, question in enumerate(detail.questions, start=1):
        answer = answers.get(question.id)
        if answer is None or not answer.correct:
            return NextStep(lesson, f"#q-{question.id}", question_number=number, started=started)
    return NextStep(lesson, "", started=started)


@dataclass
class Dashboard:
    tracks: list[TrackRows]
    completed: int
    total: int
    last: LastStep | None
    next: NextStep | None
    classes: list[HomeClass] | None  # a student's
    teaching: list[ClassSummary] | None  # a teacher's


async def build_dashboard(*, session: AsyncSession, user: User, language: str) -> Dashboard:
    tracks = await service.list_tracks(session=session)
    progress = {p.slug: p for p in await lesson_progress(session=session, user_id=user.id)}
    by_track = [
        TrackRows(item.track, [LessonRow(lesson, progress[lesson.slug]) for lesson in item.lessons])
        for item in tracks
    ]
    rows = [row for item in by_track for row in item.rows]
    lessons = {row.lesson.slug: row.lesson for row in rows}
    home = await student_home(session=session, user=user) if user.role == Role.STUDENT else None
    teaching = (
        await classes.teacher_classes(session=session, teacher_id=user.id)
        if user.role == Role.TEACHER
        else None
    )
    last = await _last_step(session=session, user_id=user.id, lessons=lessons, language=language)
    # Assignments soonest due first (student_home sorts each class's so; across classes too).
    assigned = sorted(
        (a for c in home or [] for a in c.assignments if a.state not in DONE_STATES),
        key=lambda a: (a.due_at is None, a.due_at or utcnow()),
    )
    target = _lesson_to_continue(rows, last, [a.lesson_slug for a in assigned])
    return Dashboard(
        tracks=by_track,
        completed=sum(1 for row in rows if row.progress.completed),
        total=len(rows),
        last=last,
        next=await _next_step(session=session, user_id=user.id, row=target, language=language)
        if target
        else None,
        classes=home,
        teaching=teaching,
    )


@router.get("/progress")
async def progress_page(request: Request, session: SessionDep, user: OptionalUser) -> Response:
    if user is None:
        raise LoginRequired("/progress")
    dashboard = await build_dashboard(session=session, user=user, language=request.state.language)
    return render(
        request,
        "lessons/progress.html",
        {
            "board": dashboard,
            "now": utcnow(),
            "state_labels": STATE_LABELS,
            "state_symbols": STATE_SYMBOLS,
        },
    )
