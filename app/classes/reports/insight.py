"""Where a class struggles: per lesson and per question or exercise, the share of students
right, the attempts it took them, and the most common wrong answers, outputs and errors.

Everything is aggregated in SQL (GROUP BY, a window function for the top wrong answers), so
the number of queries does not grow with the class. Who tried and who got each item right,
and the attempts it took, come from the students' records (app/item_progress.py: one row
per student and item); only the selected lesson's answers and graded submissions are read,
its wrong answers grouped in SQL, its failed runs row by row to name their error types.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from statistics import fmean
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Text,
    and_,
    case,
    cast,
    distinct,
    func,
    literal,
    or_,
    select,
    union_all,
)
from sqlalchemy.ext.asyncio import AsyncSession

from app.classes.answers import correct_answer, failure_label, plain, summarise
from app.classes.clusters import cluster_of
from app.classes.output_hints import HintView, class_hints
from app.classes.reports.grid import Grid
from app.classes.service import active_members
from app.i18n import N_, current_language
from app.lessons.catalog import is_live
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
from app.models.attempt import QuestionReveal
from app.models.content import translated
from app.models.item_progress import EXERCISE, QUESTION, ItemProgress
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
    # A wrong-output group: its cluster (app/classes/clusters.py) and the class's hint on it.
    cluster: str | None = None
    hint: HintView | None = None
    verdict: str | None = None  # a verdict's count: the verdict (its label is for the API)

    @property
    def grid_query(self) -> str:
        """The grid's query naming these students, each parameter followed by "&" (the page
        links the grid filtered to them; a group can hold hundreds)."""
        return "".join(f"student={i}&" for i in self.student_ids)


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
    students_requested_answer: int = 0  # questions: students who asked to see the answer
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


async def _question_items(session: AsyncSession, slugs: list[str]) -> dict[str, Item]:
    rows = await session.execute(
        select(
            Question.id,
            Question.lesson_slug,
            Question.kind,
            Question.prompt_html,
            Question.translations,
        )
        .where(is_live(Question), Question.lesson_slug.in_(slugs))
        .order_by(Question.lesson_slug, Question.position)
    )
    language = current_language()
    items = {
        qid: Item(qid, kind, slug, plain(translated(words, language, "prompt_html", prompt)), index)
        for index, (qid, slug, kind, prompt, words) in enumerate(rows)
    }
    return items


async def _exercise_items(session: AsyncSession, slugs: list[str]) -> dict[str, Item]:
    rows = await session.execute(
        select(
            Exercise.id,
            Exercise.lesson_slug,
            Exercise.title,
            Exercise.expected_output,
            Exercise.translations,
        )
        .where(is_live(Exercise), Exercise.lesson_slug.in_(slugs))
        .order_by(Exercise.lesson_slug, Exercise.position)
    )
    language = current_language()
    items = {
        eid: Item(
            eid,
            "exercise",
            slug,
            translated(words, language, "title", title),
            1000 + index,
            expected_output=expected,
        )
        for index, (eid, slug, title, expected, words) in enumerate(rows)
    }
    return items


async def _item_counts(
    session: AsyncSession, class_id: int, questions: dict[str, Item], exercises: dict[str, Item]
) -> None:
    """Per item, in one query over the students' records (app/item_progress.py, which keep
    the number of the attempt that first succeeded): the students who tried it, those who
    got it right, and at which attempt they first did (the histogram)."""
    if not questions and not exercises:
        return
    rows = await session.execute(
        select(ItemProgress.kind, ItemProgress.item_id, ItemProgress.first_ok_n, func.count())
        .where(ItemProgress.user_id.in_(active_members(class_id)), _of_items(questions, exercises))
        .group_by(ItemProgress.kind, ItemProgress.item_id, ItemProgress.first_ok_n)
    )
    for kind, ident, n, students in rows:
        item = (questions if kind == QUESTION else exercises)[ident]
        item.students_tried += students
        if n is not None:  # NULL: tried, never right
            item.students_right += students
            item.attempts_histogram[n] = students


def _of_items(questions: Iterable[str], exercises: Iterable[str]) -> ColumnElement[bool]:
    return or_(
        and_(ItemProgress.kind == QUESTION, ItemProgress.item_id.in_(list(questions))),
        and_(ItemProgress.kind == EXERCISE, ItemProgress.item_id.in_(list(exercises))),
    )


def _graded(class_id: int, exercise_ids: list[str]) -> ColumnElement[bool]:
    return and_(
        Submission.user_id.in_(active_members(class_id)),
        Submission.exercise_id.in_(exercise_ids),
        Submission.mode == SubmissionMode.GRADE,
        Submission.status == SubmissionStatus.DONE,
    )


async def _solution_views(
    session: AsyncSession,
    class_id: int,
    questions: dict[str, Item],
    exercises: dict[str, Item],
) -> None:
    """Per item, in one query: the students who asked to be shown a question's answer, and
    those who gave up on an exercise and saw its sample solution."""
    if not questions and not exercises:
        return
    members = active_members(class_id)
    requested = (
        select(QuestionReveal.question_id, literal("q"), func.count())
        .where(QuestionReveal.user_id.in_(members))
        .where(QuestionReveal.question_id.in_(list(questions)))
        .group_by(QuestionReveal.question_id)
    )
    gave_up = (
        select(SolutionReveal.exercise_id, literal("e"), func.count())
        .where(SolutionReveal.user_id.in_(members))
        .where(SolutionReveal.exercise_id.in_(list(exercises)))
        .where(SolutionReveal.reason == RevealReason.GAVE_UP)
        .group_by(SolutionReveal.exercise_id)
    )
    for item_id, kind, students in await session.execute(union_all(requested, gave_up)):
        if kind == "q":
            questions[item_id].students_requested_answer = int(students)
        else:
            exercises[item_id].students_gave_up = int(students)


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
    label: str = ""
    code: str = ""
    run: dict[str, Any] = field(default_factory=dict)


async def _code_failures(session: AsyncSession, class_id: int, items: dict[str, Item]) -> None:
    """Verdicts, wrong outputs and errors per exercise, by students (top 5 each), each group
    with its students and one sample submission (the first, by id)."""
    if not items:
        return
    # A passing submission counts for its verdict only: its runs and code are not read.
    failed = Submission.verdict != Verdict.PASSED
    rows = await session.execute(
        select(
            Submission.user_id,
            Submission.exercise_id,
            Submission.verdict,
            case((failed, Submission.runs)),
            case((failed, Submission.code)),
        )
        .where(_graded(class_id, list(items)))
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
            if kind == "output":
                # Keyed on the whole normalised output: the label is only its start.
                group = outputs[exercise_id][cluster_of(str(run.get("stdout") or ""))]
            else:
                group = errors[exercise_id][label]
            if not group.student_ids:
                group.label, group.code, group.run = label, code, run
            group.student_ids.add(user_id)

    def top(groups: dict[str, _Group], expected: str | None) -> list[Count]:
        ranked = sorted(groups.items(), key=lambda kv: (-len(kv[1].student_ids), kv[1].label))
        counts = []
        for key, group in ranked[:TOP]:
            count = Count(
                group.label, len(group.student_ids), student_ids=sorted(group.student_ids)
            )
            count.sample_code = group.code
            stdout = str(group.run.get("stdout") or "")
            if group.run.get("verdict") == RunVerdict.WRONG_OUTPUT and expected is not None:
                device = str(group.run.get("device") or "cpu")
                count.rows = aligned_rows(expected_on(expected, device), stdout)
                count.cluster = key
            else:
                count.sample_message = str(group.run.get("stderr") or "")[-MESSAGE_LIMIT:]
            counts.append(count)
        return counts

    for eid, item in items.items():
        item.verdicts = [
            Count(verdict.replace("_", " "), len(ids), verdict=verdict)
            for verdict, ids in sorted(verdicts[eid].items(), key=lambda kv: -len(kv[1]))
        ]
        item.wrong = top(outputs[eid], item.expected_output)
        item.errors = top(errors[eid], None)


async def _attach_hints(session: AsyncSession, class_id: int, items: dict[str, Item]) -> None:
    """Each wrong-output group's hint, where the class's teacher wrote one."""
    if not items:
        return
    hints = await class_hints(session=session, class_id=class_id, exercise_ids=list(items))
    for eid, item in items.items():
        for count in item.wrong:
            if count.cluster is not None:
                count.hint = hints.get((eid, count.cluster))


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
    questions = await _question_items(session, slugs)
    exercises = await _exercise_items(session, slugs)
    await _item_counts(session, class_id, questions, exercises)
    await _solution_views(session, class_id, questions, exercises)
    chosen_questions = {k: v for k, v in questions.items() if v.lesson_slug == selected}
    chosen_exercises = {k: v for k, v in exercises.items() if v.lesson_slug == selected}
    public = await _public_of(session, chosen_questions)
    if students:
        await _wrong_answers(session, class_id, chosen_questions, public)
        await _code_failures(session, class_id, chosen_exercises)
        await _attach_hints(session, class_id, chosen_exercises)
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
