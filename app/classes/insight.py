"""Where a class struggles: per lesson and per question or exercise, the share of students
right, the attempts it took them, and the most common wrong answers, outputs and errors.

Everything is aggregated in SQL (GROUP BY, a window function for the top wrong answers), so
the number of queries does not grow with the class; only the selected lesson's failed runs
are read row by row, to name their error types from stderr.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from statistics import fmean
from typing import Any

from sqlalchemy import Text, and_, case, cast, distinct, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.classes.answers import correct_answer, failure_label, plain, summarise
from app.classes.grid import Grid
from app.classes.service import active_members
from app.i18n import N_
from app.models import (
    Exercise,
    Question,
    QuestionAttempt,
    RevealReason,
    RunVerdict,
    SolutionReveal,
    Submission,
    SubmissionMode,
    SubmissionStatus,
    Verdict,
)
from app.submissions.diff import DiffRow, aligned_rows, expected_on

TOP = 5
MESSAGE_LIMIT = 4000  # the end of a traceback, where the error is


@dataclass
class Count:
    label: str
    students: int
    share: float = 0.0  # of the students in the class
    student_ids: list[int] = field(default_factory=list)
    # Code only: one student's submission behind the group, to act on it.
    sample_code: str | None = None
    sample_message: str | None = None  # an error group: one full error output
    rows: list[DiffRow] | None = None  # a wrong-output group: expected beside actual


@dataclass
class Item:
    """A question or an exercise of a lesson, as the class did on it."""

    id: str
    kind: str  # a question kind, or "exercise"
    lesson_slug: str
    title: str
    position: int
    students_tried: int = 0
    students_right: int = 0
    share_right: float = 0.0
    attempts_histogram: dict[int, int] = field(default_factory=dict)
    wrong: list[Count] = field(default_factory=list)
    errors: list[Count] = field(default_factory=list)
    verdicts: list[Count] = field(default_factory=list)
    students_gave_up: int = 0  # exercises: students who gave up and saw the solution
    expected_output: str | None = None  # exercises
    correct: list[str] = field(default_factory=list)  # questions: the right answer in words

    @property
    def is_code(self) -> bool:
        return self.kind == "exercise"

    @property
    def share_right_of_tried(self) -> float:
        return self.students_right / self.students_tried if self.students_tried else 0.0

    @property
    def buckets(self) -> list[int]:
        """Students who got it right in 1, 2, 3, 4, and 5 or more attempts."""
        counts = [0] * 5
        for n, k in self.attempts_histogram.items():
            counts[min(max(n, 1), 5) - 1] += k
        return counts

    @property
    def attempts_mean(self) -> float | None:
        total = sum(self.attempts_histogram.values())
        if not total:
            return None
        return sum(n * k for n, k in self.attempts_histogram.items()) / total

    @property
    def attempts_median(self) -> float | None:
        values = sorted(self.attempts_histogram.items())
        total = sum(k for _, k in values)
        if not total:
            return None

        def nth(index: int) -> int:
            seen = 0
            for n, k in values:
                seen += k
                if index < seen:
                    return n
            return values[-1][0]

        return (nth((total - 1) // 2) + nth(total // 2)) / 2


@dataclass
class LessonSummary:
    slug: str
    title: str
    students: int
    counts: dict[str, int]
    attempts_mean: float | None

    @property
    def share_done(self) -> float:
        return self.counts["done"] / self.students if self.students else 0.0


@dataclass
class Insight:
    students: int
    lessons: list[LessonSummary]
    lesson: str | None
    items: list[Item]  # the selected lesson's questions and exercises, in lesson order
    hardest: list[Item]  # across every lesson of the grid


def _summaries(grid: Grid) -> list[LessonSummary]:
    result = []
    for lesson in grid.lessons:
        cells = [grid.cell(s.id, lesson.slug) for s in grid.students]
        counts: Counter[str] = Counter(COARSE[c.state] for c in cells)
        began = [c.attempts for c in cells if c.attempts]
        result.append(
            LessonSummary(
                slug=lesson.slug,
                title=lesson.title,
                students=len(cells),
                counts={state: counts.get(state, 0) for state in STATE_ORDER},
                attempts_mean=fmean(began) if began else None,
            )
        )
    return result


STATE_ORDER = ("done", "in_progress", "late", "not_started")
INSIGHT_LABELS: dict[str, str] = {
    "done": N_("Done"),
    "in_progress": N_("In progress"),
    "late": N_("Late"),
    "not_started": N_("Not started"),
}
INSIGHT_SYMBOLS: dict[str, str] = {"done": "✓", "in_progress": "◐", "late": "!", "not_started": "○"}
# Insight's four bars: done (on time or late), in progress, late (overdue, not done), not
# started. The grid tells the six states apart (app/classes/due.py).
COARSE: dict[str, str] = {
    "done": "done",
    "done_late": "done",
    "in_progress": "in_progress",
    "overdue_in_progress": "late",
    "not_started": "not_started",
    "overdue_not_started": "late",
}


def _histogram(numbered: Any, success: Any) -> Any:
    """Per item, how many students first succeeded at their n-th attempt: rows of (item, n,
    students), n NULL for the students who tried and never succeeded."""
    first = (
        select(numbered.c.item, func.min(case((success, numbered.c.n))).label("n"))
        .group_by(numbered.c.item, numbered.c.user_id)
        .subquery()
    )
    return select(first.c.item, first.c.n, func.count()).group_by(first.c.item, first.c.n)


def _count_histogram(items: dict[str, Item], rows: Any) -> None:
    for ident, n, students in rows:
        item = items[ident]
        item.students_tried += int(students)
        if n is not None:
            item.students_right += int(students)
            item.attempts_histogram[int(n)] = int(students)


async def _question_items(
    session: AsyncSession, class_id: int, slugs: list[str]
) -> dict[str, Item]:
    members = active_members(class_id)
    rows = await session.execute(
        select(Question.id, Question.lesson_slug, Question.kind, Question.prompt_html)
        .where(~Question.retired, Question.lesson_slug.in_(slugs))
        .order_by(Question.lesson_slug, Question.position)
    )
    items = {
        qid: Item(qid, kind, slug, plain(prompt), index)
        for index, (qid, slug, kind, prompt) in enumerate(rows)
    }
    if not items:
        return items
    # Attempts to success: per (student, question) the number of the first right answer,
    # counted in one pass with a window function (no self-join).
    numbered = (
        select(
            QuestionAttempt.question_id.label("item"),
            QuestionAttempt.user_id.label("user_id"),
            QuestionAttempt.correct.label("ok"),
            func.row_number()
            .over(
                partition_by=(QuestionAttempt.user_id, QuestionAttempt.question_id),
                order_by=QuestionAttempt.id,
            )
            .label("n"),
        )
        .where(QuestionAttempt.user_id.in_(members))
        .where(QuestionAttempt.question_id.in_(list(items)))
        .subquery()
    )
    histogram = await session.execute(_histogram(numbered, numbered.c.ok))
    _count_histogram(items, histogram)
    return items


async def _exercise_items(
    session: AsyncSession, class_id: int, slugs: list[str]
) -> dict[str, Item]:
    members = active_members(class_id)
    rows = await session.execute(
        select(Exercise.id, Exercise.lesson_slug, Exercise.title, Exercise.expected_output)
        .where(~Exercise.retired, Exercise.lesson_slug.in_(slugs))
        .order_by(Exercise.lesson_slug, Exercise.position)
    )
    items = {
        eid: Item(eid, "exercise", slug, title, 1000 + index, expected_output=expected)
        for index, (eid, slug, title, expected) in enumerate(rows)
    }
    if not items:
        return items
    graded = and_(
        Submission.user_id.in_(members),
        Submission.exercise_id.in_(list(items)),
        Submission.mode == SubmissionMode.GRADE,
        Submission.status == SubmissionStatus.DONE,
    )
    numbered = (
        select(
            Submission.exercise_id.label("item"),
            Submission.user_id.label("user_id"),
            Submission.verdict.label("verdict"),
            func.row_number()
            .over(
                partition_by=(Submission.user_id, Submission.exercise_id),
                order_by=Submission.id,
            )
            .label("n"),
        )
        .where(graded)
        .subquery()
    )
    histogram = await session.execute(_histogram(numbered, numbered.c.verdict == Verdict.PASSED))
    _count_histogram(items, histogram)
    gave_up = await session.execute(
        select(SolutionReveal.exercise_id, func.count())
        .where(SolutionReveal.user_id.in_(members), SolutionReveal.exercise_id.in_(list(items)))
        .where(SolutionReveal.reason == RevealReason.GAVE_UP)
        .group_by(SolutionReveal.exercise_id)
    )
    for exercise_id, students in gave_up:
        items[exercise_id].students_gave_up = int(students)
    return items


async def _wrong_answers(
    session: AsyncSession, class_id: int, items: dict[str, Item], public: dict[str, Any]
) -> None:
    """The most common wrong answers per question, by students who gave them (top 5)."""
    if not public:
        return
    answer = cast(QuestionAttempt.answer, Text)
    grouped = (
        select(
            QuestionAttempt.question_id.label("qid"),
            answer.label("answer"),
            func.count(distinct(QuestionAttempt.user_id)).label("students"),
        )
        .where(QuestionAttempt.user_id.in_(active_members(class_id)))
        .where(QuestionAttempt.question_id.in_(list(public)), ~QuestionAttempt.correct)
        .group_by(QuestionAttempt.question_id, answer)
        .subquery()
    )
    ranked = select(
        grouped.c.qid,
        grouped.c.answer,
        grouped.c.students,
        func.row_number()
        .over(
            partition_by=grouped.c.qid,
            order_by=(grouped.c.students.desc(), grouped.c.answer),
        )
        .label("rank"),
    ).subquery()
    rows = await session.execute(
        select(ranked.c.qid, ranked.c.answer, ranked.c.students)
        .where(ranked.c.rank <= TOP)
        .order_by(ranked.c.qid, ranked.c.rank)
    )
    top: dict[tuple[str, str], Count] = {}
    for qid, text, students in rows:
        item = items[qid]
        try:
            value = json.loads(text)
        except (TypeError, ValueError):
            value = text
        label = summarise(item.kind, public[qid], value)
        item.wrong.append(count := Count(label, int(students)))
        top[(qid, text)] = count
    # The students behind each top answer: one more query, over the same wrong answers.
    who = await session.execute(
        select(QuestionAttempt.question_id, answer, QuestionAttempt.user_id)
        .where(QuestionAttempt.user_id.in_(active_members(class_id)))
        .where(QuestionAttempt.question_id.in_(list(public)), ~QuestionAttempt.correct)
        .distinct()
    )
    for qid, text, user_id in who:
        if (found := top.get((qid, text))) is not None:
            found.student_ids.append(user_id)
    for found in top.values():
        found.student_ids.sort()


@dataclass
class _Group:
    """Students behind one failure of one exercise, and the first submission that showed it."""

    student_ids: set[int] = field(default_factory=set)
    code: str = ""
    run: dict[str, Any] = field(default_factory=dict)


async def _code_failures(session: AsyncSession, class_id: int, items: dict[str, Item]) -> None:
    """Verdicts, wrong outputs and errors per exercise, by students (top 5 each), each group
    with its students and one sample submission (the first, by id)."""
    if not items:
        return
    rows = await session.execute(
        select(
            Submission.user_id,
            Submission.exercise_id,
            Submission.verdict,
            Submission.runs,
            Submission.code,
        )
        .where(Submission.user_id.in_(active_members(class_id)))
        .where(Submission.exercise_id.in_(list(items)))
        .where(Submission.mode == SubmissionMode.GRADE, Submission.status == SubmissionStatus.DONE)
        .order_by(Submission.id)
    )
    verdicts: dict[str, dict[str, set[int]]] = defaultdict(lambda: defaultdict(set))
    outputs: dict[str, dict[str, _Group]] = defaultdict(lambda: defaultdict(_Group))
    errors: dict[str, dict[str, _Group]] = defaultdict(lambda: defaultdict(_Group))
    for user_id, exercise_id, verdict, runs, code in rows:
        verdicts[exercise_id][verdict or "unknown"].add(user_id)
        if verdict == Verdict.PASSED:
            continue
        for run in runs or []:
            failure = failure_label(run) if isinstance(run, dict) else None
            if failure is None:
                continue
            kind, label = failure
            group = (outputs if kind == "output" else errors)[exercise_id][label]
            if not group.student_ids:
                group.code, group.run = code, run
            group.student_ids.add(user_id)

    def top(groups: dict[str, _Group], expected: str | None) -> list[Count]:
        ranked = sorted(groups.items(), key=lambda kv: (-len(kv[1].student_ids), kv[0]))
        counts = []
        for label, group in ranked[:TOP]:
            count = Count(label, len(group.student_ids), student_ids=sorted(group.student_ids))
            count.sample_code = group.code
            stdout = str(group.run.get("stdout") or "")
            if group.run.get("verdict") == RunVerdict.WRONG_OUTPUT and expected is not None:
                device = str(group.run.get("device") or "cpu")
                count.rows = aligned_rows(expected_on(expected, device), stdout)
            else:
                count.sample_message = str(group.run.get("stderr") or "")[-MESSAGE_LIMIT:]
            counts.append(count)
        return counts

    for eid, item in items.items():
        item.verdicts = [
            Count(verdict.replace("_", " "), len(ids))
            for verdict, ids in sorted(verdicts[eid].items(), key=lambda kv: -len(kv[1]))
        ]
        item.wrong = top(outputs[eid], item.expected_output)
        item.errors = top(errors[eid], None)


async def _public_of(session: AsyncSession, items: dict[str, Item]) -> dict[str, Any]:
    """Each question's public part (to read wrong answers), filling in its right answer."""
    rows = await session.scalars(select(Question).where(Question.id.in_(list(items))))
    public = {}
    for question in rows:
        public[question.id] = question.public
        items[question.id].correct = correct_answer(question)
    return public


def _shares(items: list[Item], students: int) -> None:
    for item in items:
        item.share_right = item.students_right / students if students else 0.0
        for count in (*item.wrong, *item.errors, *item.verdicts):
            count.share = count.students / students if students else 0.0


async def build_insight(
    *, session: AsyncSession, class_id: int, grid: Grid, lesson: str | None
) -> Insight:
    """Per-lesson summaries and the hardest items for the whole grid; wrong answers, outputs
    and error types for one lesson (`lesson`, default the grid's first)."""
    students = len(grid.students)
    slugs = [g.slug for g in grid.lessons]
    selected = lesson if lesson in slugs else (slugs[0] if slugs else None)
    if not slugs:
        return Insight(students, [], None, [], [])
    questions = await _question_items(session, class_id, slugs)
    exercises = await _exercise_items(session, class_id, slugs)
    chosen_questions = {k: v for k, v in questions.items() if v.lesson_slug == selected}
    chosen_exercises = {k: v for k, v in exercises.items() if v.lesson_slug == selected}
    public = await _public_of(session, chosen_questions)
    if students:
        await _wrong_answers(session, class_id, chosen_questions, public)
        await _code_failures(session, class_id, chosen_exercises)
    every = [*questions.values(), *exercises.values()]
    _shares(every, students)
    hardest = sorted(
        (item for item in every if item.students_tried),
        key=lambda item: (item.share_right_of_tried, -item.students_tried, item.id),
    )[:10]
    return Insight(
        students=students,
        lessons=_summaries(grid),
        lesson=selected,
        items=[*chosen_questions.values(), *chosen_exercises.values()],
        hardest=hardest,
    )
