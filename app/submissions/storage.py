"""What is kept of each submission, and how many bytes each user keeps stored.

Per student and exercise, the submissions a student comes back to keep their output in
full: the latest graded one, the best graded one (the newest that passed, else the latest)
and the latest try-out. Every other finished submission keeps, of each run's stdout, stderr
and diff, the first and the last KiB around a line that says how much was cut (the last
lines of a traceback name the error, which the teachers' insight counts), and is flagged
`output_compacted` (the API's Submission says `output_truncated` when anything was cut).
Code is always kept in full: teachers read it.

`users.stored_bytes` counts what a user's submissions keep: the code and every stored
output, in UTF-8 bytes. It changes in the same transaction as the rows it counts, so
/metrics reads it instead of summing the submissions table. Cutting is serialised per user
by locking the user's row first, so two web processes recording at once neither cut the
same submission twice nor miss one: the second waits for the first, then sees its work.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from sqlalchemy import ColumnElement, Integer, String, bindparam, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from app.db import execute_core, table_of
from app.grading import fairness
from app.models import Submission, SubmissionMode, SubmissionRun, SubmissionStatus, User, Verdict

KEEP_BYTES = 2048  # of each output of an older attempt: its first and its last KiB
OUTPUT_FIELDS = ("stdout", "stderr", "diff")
# A cut text is at most KEEP_BYTES plus its marker line; anything that short is left alone,
# so cutting twice changes nothing.
_MARKER_ROOM = 64


def utf8_len(text: str) -> int:
    return len(text.encode())


def output_bytes(run: dict[str, Any]) -> int:
    return sum(utf8_len(str(run.get(field) or "")) for field in OUTPUT_FIELDS)


def runs_bytes(runs: list[dict[str, Any]]) -> int:
    return sum(output_bytes(run) for run in runs)


def cut(text: str, keep: int = KEEP_BYTES) -> str:
    """The first and the last keep/2 bytes of `text` around "… truncated (N bytes) …"."""
    data = text.encode()
    if len(data) <= keep + _MARKER_ROOM:
        return text
    head = data[: keep // 2].decode(errors="ignore")  # never half a character
    tail = data[-(keep // 2) :].decode(errors="ignore")
    left_out = len(data) - utf8_len(head) - utf8_len(tail)
    return f"{head}\n… truncated ({left_out} bytes) …\n{tail}"


def cut_run(run: dict[str, Any]) -> dict[str, Any]:
    """The run with each output cut; `truncated` says whether anything was."""
    outputs = {field: cut(str(run.get(field) or "")) for field in OUTPUT_FIELDS}
    changed = any(outputs[field] != (run.get(field) or "") for field in OUTPUT_FIELDS)
    if not changed:
        return run
    return {**run, **outputs, "truncated": True}


def without_output(run: dict[str, Any]) -> dict[str, Any]:
    """What `submission_runs` keeps of a run once the finished submission holds it."""
    return {**run, "stdout": "", "stderr": "", "diff": ""}


async def add_stored_bytes(*, session: AsyncSession, user_id: int, delta: int) -> None:
    if delta:
        await execute_core(session, _count_statement(), {"user_id": user_id, "delta": delta})


@cache
def _count_statement() -> Any:
    """add_stored_bytes' UPDATE, built once: it runs twice on every grading."""
    users = table_of(User)
    return (
        update(users)
        .where(users.c.id == bindparam("user_id", type_=Integer))
        .values(stored_bytes=users.c.stored_bytes + bindparam("delta", type_=Integer))
    )


async def drop_run_copies(
    *, session: AsyncSession, submission_id: int, runs: list[dict[str, Any]]
) -> None:
    """The finished submission now holds these runs: their rows in submission_runs keep no
    output. The bytes only moved, so the user's count does not change."""
    for run in runs:
        if output_bytes(run):
            await execute_core(
                session,
                update(SubmissionRun)
                .where(
                    SubmissionRun.submission_id == submission_id,
                    SubmissionRun.device == run["device"],
                )
                .values(run=without_output(run)),
            )


async def compact(*, session: AsyncSession, user_id: int, exercise_id: str) -> int:
    """Cut the output of this student's finished submissions to this exercise that are
    neither the latest nor the best; returns the bytes freed. Idempotent."""
    # Compactions of one user run one after the other (SQLite has one writer already).
    await fairness.lock_student(session=session, user_id=user_id)
    # Flagged and read back in one statement: usually an older attempt's output is short,
    # and nothing more is written.
    flagged = await execute_core(
        session, _older_statement(), {"owner": user_id, "exercise": exercise_id}
    )
    older: list[tuple[int, Any]] = [(row[0], row[1]) for row in flagged]
    if not older:
        return 0
    freed = 0
    for submission_id, runs in older:
        cut_runs = [cut_run(run) for run in runs or []]
        if cut_runs != (runs or []):
            await execute_core(
                session,
                update(Submission).where(Submission.id == submission_id).values(runs=cut_runs),
            )
            freed += runs_bytes(runs or []) - runs_bytes(cut_runs)
    # Only a submission that holds no runs (one a platform error ended part-way) may still
    # have their output in submission_runs: a finish that copies them empties those rows.
    freed += await _cut_uncopied_runs(
        session=session, submission_ids=[ident for ident, runs in older if not runs]
    )
    await add_stored_bytes(session=session, user_id=user_id, delta=-freed)
    return freed


@cache
def _older_statement() -> Any:
    """Flag as compacted, and return (id, runs) of, the finished submissions of one student
    to one exercise whose output is still whole and that are neither the latest graded one,
    nor the best, nor the latest try-out: one statement (it runs after every grading),
    built once."""

    def mine(row: Any) -> ColumnElement[bool]:
        return (
            (row.user_id == bindparam("owner", type_=Integer))
            & (row.exercise_id == bindparam("exercise", type_=String))
            & row.status.in_(SubmissionStatus.FINISHED)
        )

    def newest(kind: Callable[[Any], ColumnElement[bool]]) -> ColumnElement[Any]:
        other = aliased(Submission)  # not correlated with the outer query's rows
        found = select(func.max(other.id)).where(mine(other), kind(other))
        return func.coalesce(found.scalar_subquery(), 0)  # NULL would make != unknown

    def graded(row: Any) -> ColumnElement[bool]:
        return row.mode == SubmissionMode.GRADE

    def passed(row: Any) -> ColumnElement[bool]:
        return graded(row) & (row.verdict == Verdict.PASSED)

    def tried(row: Any) -> ColumnElement[bool]:
        return row.mode == SubmissionMode.RUN

    keepers = [newest(graded), newest(passed), newest(tried)]
    return (
        update(Submission)
        .where(
            mine(Submission),
            ~Submission.output_compacted,
            *[Submission.id != kept for kept in keepers],
        )
        .values(output_compacted=True)
        .returning(Submission.id, Submission.runs)
    )


async def _cut_uncopied_runs(*, session: AsyncSession, submission_ids: list[int]) -> int:
    """Cut the output of these submissions' rows in submission_runs; the bytes freed."""
    if not submission_ids:
        return 0
    freed = 0
    leftovers = await session.execute(
        select(SubmissionRun.id, SubmissionRun.run).where(
            SubmissionRun.submission_id.in_(submission_ids)
        )
    )
    for run_id, run in leftovers.all():
        shorter = cut_run(run)
        if shorter is not run:
            await session.execute(
                update(SubmissionRun)
                .where(SubmissionRun.id == run_id)
                .values(run=shorter)
                .execution_options(synchronize_session=False)
            )
            freed += output_bytes(run) - output_bytes(shorter)
    return freed
