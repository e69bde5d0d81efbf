"""Each student's record per question and exercise (app/models/item_progress.py), kept up to
date in the transaction that records their work, so that a class's grid and insight read one
row per student and item instead of every answer and graded submission.

Four ways in, one meaning (the grid's, app/classes/reports/grid.py):
- `answer_recorded`: a student's answer, as it is stored (app/quizzes/service.py);
- `submission_finished`: a submission as it finishes; only a graded one (mode grade, status
  done) counts, a platform error is not the student's attempt (app/grading/recording.py);
- `follow_lessons`: the rows' lesson (copied for the grid) of items a content sync moved;
- `rebuild`: the rows of some items or students made again from question_attempts and
  submissions, for a change that rewrites history (a regrade's new verdicts) and to fill
  the table (migration 0021).

The first two add one attempt with an upsert whose arithmetic runs in the database
(attempts + 1), so two answers recorded at once by one student both count. Reveals and
give-ups are not here (the grid reads their small tables), and neither is retirement:
readers leave a retired item's rows out, and find them again if it comes back.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from functools import cache
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Executable,
    Integer,
    String,
    and_,
    bindparam,
    case,
    delete,
    func,
    insert,
    literal,
    select,
    true,
    update,
)
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import execute_core, insert_for
from app.models import (
    Exercise,
    Question,
    QuestionAttempt,
    Submission,
    SubmissionMode,
    SubmissionStatus,
    Verdict,
)
from app.models.item_progress import EXERCISE, QUESTION, ItemProgress

__all__ = [
    "COLUMNS",
    "EXERCISE",
    "QUESTION",
    "answer_recorded",
    "follow_lessons",
    "rebuild",
    "rebuild_statements",
    "recomputed",
    "submission_finished",
]


async def answer_recorded(
    *, session: AsyncSession, user_id: int, question: Question, correct: bool, at: datetime
) -> None:
    await _add_attempt(
        session,
        kind=QUESTION,
        user_id=user_id,
        item_id=question.id,
        ok=correct,
        at=at,
        lesson={"p_lesson_slug": question.lesson_slug},
    )


async def submission_finished(*, session: AsyncSession, submission: Submission) -> None:
    """Call once a submission's final status and verdict are written; counts only a graded
    one."""
    if submission.mode != SubmissionMode.GRADE or submission.status != SubmissionStatus.DONE:
        return
    await _add_attempt(
        session,
        kind=EXERCISE,
        user_id=submission.user_id,
        item_id=submission.exercise_id,
        ok=submission.verdict == Verdict.PASSED,
        at=submission.created_at,
    )


async def _add_attempt(
    session: AsyncSession,
    *,
    kind: str,
    user_id: int,
    item_id: str,
    ok: bool,
    at: datetime,
    lesson: dict[str, Any] | None = None,
) -> None:
    """One attempt more on the student's record of the item. `lesson`: the item's lesson
    slug as a parameter; without it (an exercise) it is read in the same statement."""
    parameters = {"p_user_id": user_id, "p_kind": kind, "p_item_id": item_id, "p_at": at}
    parameters |= {"p_first_ok_at": at if ok else None, "p_first_ok_n": 1 if ok else None}
    statement = _upsert_statement(insert_for(session), lesson is None)
    await execute_core(session, statement, parameters | (lesson or {}))


@cache
def _upsert_statement(dialect_insert: Any, lesson_of_the_exercise: bool) -> Any:
    """The upsert of one attempt, built once per database and per way of finding the item's
    lesson: it runs on every answer and every grading (past the ORM's bookkeeping too:
    db.execute_core)."""
    item_id = bindparam("p_item_id", type_=String)
    lesson_slug: Any = bindparam("p_lesson_slug", type_=String)
    if lesson_of_the_exercise:
        lesson_slug = select(Exercise.lesson_slug).where(Exercise.id == item_id).scalar_subquery()
    at = bindparam("p_at", type_=ItemProgress.last_at.type)
    row = dialect_insert(ItemProgress).values(
        user_id=bindparam("p_user_id", type_=Integer),
        kind=bindparam("p_kind", type_=String),
        item_id=item_id,
        lesson_slug=lesson_slug,
        attempts=1,
        last_at=at,
        first_ok_at=bindparam("p_first_ok_at", type_=ItemProgress.first_ok_at.type),
        first_ok_n=bindparam("p_first_ok_n", type_=Integer),
    )
    new, old = row.excluded, ItemProgress
    return row.on_conflict_do_update(
        index_elements=[ItemProgress.user_id, ItemProgress.kind, ItemProgress.item_id],
        set_={
            "lesson_slug": new.lesson_slug,
            "attempts": old.attempts + 1,
            "last_at": case((new.last_at > old.last_at, new.last_at), else_=old.last_at),
            "first_ok_at": case(
                (
                    and_(
                        new.first_ok_at.is_not(None),
                        old.first_ok_at.is_(None) | (new.first_ok_at < old.first_ok_at),
                    ),
                    new.first_ok_at,
                ),
                else_=old.first_ok_at,
            ),
            # The attempt's number is the count before it plus one.
            "first_ok_n": case(
                (and_(old.first_ok_n.is_(None), new.first_ok_n.is_not(None)), old.attempts + 1),
                else_=old.first_ok_n,
            ),
        },
    )


def recomputed(
    *,
    users: Collection[int] | None = None,
    questions: Collection[str] | None = None,
    exercises: Collection[str] | None = None,
) -> list[Any]:
    """The rows as they should be, from question_attempts and submissions: SELECTs of
    (user_id, kind, item_id, lesson_slug, attempts, last_at, first_ok_at, first_ok_n), one
    per kind.
    Narrowed to some students, and to some items (`_items`)."""
    question_ids, exercise_ids = _items(questions, exercises)
    parts = []
    if question_ids is None or question_ids:
        parts.append(
            _per_item(
                kind=QUESTION,
                model=Question,
                user_id=QuestionAttempt.user_id,
                item_id=QuestionAttempt.question_id,
                ok=QuestionAttempt.correct,
                at=QuestionAttempt.created_at,
                order=QuestionAttempt.id,
                where=_narrowed(
                    QuestionAttempt.user_id, users, QuestionAttempt.question_id, question_ids
                ),
            )
        )
    if exercise_ids is None or exercise_ids:
        parts.append(
            _per_item(
                kind=EXERCISE,
                model=Exercise,
                user_id=Submission.user_id,
                item_id=Submission.exercise_id,
                ok=Submission.verdict == Verdict.PASSED,
                at=Submission.created_at,
                order=Submission.id,
                where=and_(
                    Submission.mode == SubmissionMode.GRADE,
                    Submission.status == SubmissionStatus.DONE,
                    _narrowed(Submission.user_id, users, Submission.exercise_id, exercise_ids),
                ),
            )
        )
    return parts


def _items(
    questions: Collection[str] | None, exercises: Collection[str] | None
) -> tuple[Collection[str] | None, Collection[str] | None]:
    """Neither named: every item of both kinds (None, None). One or both named: those only
    (the kind not named: none)."""
    if questions is None and exercises is None:
        return None, None
    return questions or (), exercises or ()


def _narrowed(
    user_col: Any,
    users: Collection[int] | None,
    item_col: Any,
    items: Collection[str] | None,
) -> ColumnElement[bool]:
    conditions: list[ColumnElement[bool]] = [true()]
    if users is not None:
        conditions.append(user_col.in_(list(users)))
    if items is not None:
        conditions.append(item_col.in_(list(items)))
    return and_(*conditions)


def _per_item(
    *,
    kind: str,
    model: type[Question] | type[Exercise],
    user_id: Any,
    item_id: Any,
    ok: Any,
    at: Any,
    order: Any,
    where: Any,
) -> Any:
    numbered = (
        select(
            user_id.label("user_id"),
            item_id.label("item_id"),
            model.lesson_slug.label("lesson_slug"),
            ok.label("ok"),
            at.label("at"),
            func.row_number().over(partition_by=(user_id, item_id), order_by=order).label("n"),
        )
        .join(model, model.id == item_id)
        .where(where)
        .subquery()
    )
    c = numbered.c
    return select(
        c.user_id,
        literal(kind).label("kind"),
        c.item_id,
        c.lesson_slug,
        func.count().label("attempts"),
        func.max(c.at).label("last_at"),
        func.min(case((c.ok, c.at))).label("first_ok_at"),
        func.min(case((c.ok, c.n))).label("first_ok_n"),
    ).group_by(c.user_id, c.item_id, c.lesson_slug)


COLUMNS = (
    "user_id",
    "kind",
    "item_id",
    "lesson_slug",
    "attempts",
    "last_at",
    "first_ok_at",
    "first_ok_n",
)


def rebuild_statements(
    *,
    users: Collection[int] | None = None,
    questions: Collection[str] | None = None,
    exercises: Collection[str] | None = None,
) -> list[Executable]:
    """DELETE the rows in scope, then INSERT them again from `recomputed` (as `recomputed`
    narrows: None, every one). Statements, so migration 0021 runs them as they are."""
    statements: list[Executable] = []
    scope: list[ColumnElement[bool]] = []
    if users is not None:
        scope.append(ItemProgress.user_id.in_(list(users)))
    question_ids, exercise_ids = _items(questions, exercises)
    if question_ids is not None and exercise_ids is not None:
        scope.append(
            ((ItemProgress.kind == QUESTION) & ItemProgress.item_id.in_(list(question_ids)))
            | ((ItemProgress.kind == EXERCISE) & ItemProgress.item_id.in_(list(exercise_ids)))
        )
    statements.append(delete(ItemProgress).where(*scope))
    for part in recomputed(users=users, questions=questions, exercises=exercises):
        statements.append(insert(ItemProgress).from_select(COLUMNS, part))
    return statements


async def rebuild(
    *,
    session: AsyncSession,
    users: Collection[int] | None = None,
    questions: Collection[str] | None = None,
    exercises: Collection[str] | None = None,
) -> None:
    """Make the rows in scope again from the raw rows (see `rebuild_statements`)."""
    for statement in rebuild_statements(users=users, questions=questions, exercises=exercises):
        await execute_core(session, statement)


async def follow_lessons(
    *, session: AsyncSession, questions: Collection[str], exercises: Collection[str]
) -> None:
    """Give the rows of these items their item's lesson as the catalog has it now: a content
    sync that moves a question or exercise to another lesson names it (app/content/sync.py).
    Nothing to do, no statement: a sync that moved nothing reads no record."""
    for kind, model, moved in ((QUESTION, Question, questions), (EXERCISE, Exercise, exercises)):
        if not moved:
            continue
        lesson = select(model.lesson_slug).where(model.id == ItemProgress.item_id)
        await execute_core(
            session,
            update(ItemProgress)
            .where(ItemProgress.kind == kind, ItemProgress.item_id.in_(list(moved)))
            .values(lesson_slug=lesson.scalar_subquery()),
        )
