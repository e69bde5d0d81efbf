"""Regrades: an exercise's stored submissions graded again against its current version, in
the background behind live submissions, kept apart until a teacher has seen which students'
results would flip and applies them. Never commits (the Regrader commits its own work)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from sqlalchemy import Integer, insert, literal, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app import item_progress
from app.db import Database
from app.lti import grades
from app.models import (
    ClassMember,
    Classroom,
    Exercise,
    Regrade,
    RegradeResult,
    RegradeStatus,
    RunVerdict,
    Submission,
    SubmissionMode,
    SubmissionRun,
    SubmissionStatus,
    User,
    Verdict,
    utcnow,
)
from app.submissions import storage

if TYPE_CHECKING:
    from grader import Job, Result


class Grades(Protocol):
    def grade(self, job: Job) -> Result: ...


# Grades a job somewhere else (distributed mode: the workers), its runs as stored.
GradeJob = Callable[["Job"], Awaitable[list[dict[str, Any]]]]
# Takes a result for this process alone (distributed mode: several web processes regrade).
Claim = Callable[[int], Awaitable[bool]]


log = logging.getLogger(__name__)

# What grading compares or runs: a change to any of them may change a verdict.
GRADING_FIELDS = ("expected_output", "comparison", "limits", "setup", "variants", "devices")
UNFINISHED = (RegradeStatus.PENDING, RegradeStatus.RUNNING)
OPEN = (*UNFINISHED, RegradeStatus.READY)
MAX_ATTEMPTS = 2  # a platform fault is retried once, then kept as `error` (never applied)
SYNC_REASON = "The exercise's expected output, comparison or limits changed (content sync)."


class RegradeConflict(Exception):
    """The regrade cannot be applied or discarded as it stands (the message says why)."""


def fingerprint(values: Mapping[str, Any]) -> str:
    """A digest of an exercise's grading fields (`values`: a row or the synced values)."""
    wanted = {name: values[name] for name in GRADING_FIELDS}
    return hashlib.sha256(json.dumps(wanted, sort_keys=True, default=str).encode()).hexdigest()


def exercise_fingerprint(exercise: Exercise) -> str:
    return fingerprint({name: getattr(exercise, name) for name in GRADING_FIELDS})


async def request_regrade(
    *, session: AsyncSession, exercise: Exercise, requested_by: int | None, reason: str
) -> Regrade:
    """A pending regrade of every graded submission of the exercise; an earlier regrade of it
    that was not applied yet is discarded (it graded against an older version)."""
    await session.execute(
        update(Regrade)
        .where(Regrade.exercise_id == exercise.id, Regrade.status.in_(OPEN))
        .values(status=RegradeStatus.DISCARDED)
    )
    regrade = Regrade(
        exercise_id=exercise.id,
        requested_by=requested_by,
        reason=reason,
        fingerprint=exercise_fingerprint(exercise),
        status=RegradeStatus.PENDING,
        total=0,
        created_at=utcnow(),
    )
    session.add(regrade)
    await session.flush()
    graded = select(
        literal(regrade.id, Integer),
        Submission.id,
        Submission.user_id,
        Submission.verdict,
    ).where(
        Submission.exercise_id == exercise.id,
        Submission.mode == SubmissionMode.GRADE,
        Submission.status == SubmissionStatus.DONE,
    )
    inserted = await session.execute(
        insert(RegradeResult).from_select(
            ["regrade_id", "submission_id", "user_id", "old_verdict"], graded
        )
    )
    regrade.total = max(getattr(inserted, "rowcount", 0), 0)
    if regrade.total == 0:
        regrade.status, regrade.ready_at = RegradeStatus.READY, utcnow()
    await session.flush()
    return regrade


async def has_graded_submissions(*, session: AsyncSession, exercise_id: str) -> bool:
    found = await session.scalar(
        select(Submission.id)
        .where(
            Submission.exercise_id == exercise_id,
            Submission.mode == SubmissionMode.GRADE,
            Submission.status == SubmissionStatus.DONE,
        )
        .limit(1)
    )
    return found is not None


async def get_regrade(*, session: AsyncSession, regrade_id: int) -> Regrade | None:
    return await session.get(Regrade, regrade_id)


async def list_regrades(*, session: AsyncSession, exercise_id: str | None = None) -> list[Regrade]:
    """Newest first, at most 50."""
    query = select(Regrade).order_by(Regrade.id.desc()).limit(50)
    if exercise_id is not None:
        query = query.where(Regrade.exercise_id == exercise_id)
    return list((await session.scalars(query)).all())


@dataclass
class Student:
    id: int
    username: str


@dataclass
class ClassFlips:
    class_id: int
    name: str
    to_failed: list[Student] = field(default_factory=list)
    to_passed: list[Student] = field(default_factory=list)


@dataclass
class Preview:
    regrade: Regrade
    graded: int
    errors: int
    changed: int  # submissions whose verdict the regrade changes
    to_failed: int  # students, in every class and none
    to_passed: int
    classes: list[ClassFlips]


def _passes(verdict: Verdict | None) -> bool:
    return verdict == Verdict.PASSED


async def preview(*, session: AsyncSession, regrade: Regrade, teacher_id: int) -> Preview:
    """What applying would change, from the submissions graded so far: counts, and per
    class the teacher owns, the students whose result for the exercise would flip. A
    student's result is passed when any of their submissions passed; a submission the
    platform failed to grade again keeps its verdict; one made after the regrade began
    (so not in it) keeps its own."""
    rows = (
        await session.execute(
            select(
                RegradeResult.user_id,
                RegradeResult.old_verdict,
                RegradeResult.new_status,
                RegradeResult.new_verdict,
            ).where(RegradeResult.regrade_id == regrade.id)
        )
    ).all()
    in_regrade = select(RegradeResult.submission_id).where(RegradeResult.regrade_id == regrade.id)
    passed_elsewhere = set(
        (
            await session.scalars(
                select(Submission.user_id).where(
                    Submission.exercise_id == regrade.exercise_id,
                    Submission.verdict == Verdict.PASSED,
                    Submission.id.not_in(in_regrade),
                )
            )
        ).all()
    )
    old: dict[int, bool] = {}
    new: dict[int, bool] = {}
    graded = errors = changed = 0
    for user_id, old_verdict, new_status, new_verdict in rows:
        verdict_now = old_verdict
        if new_status is not None:
            graded += 1
            if new_status == SubmissionStatus.DONE:
                verdict_now = new_verdict
                changed += new_verdict != old_verdict
            else:
                errors += 1
        old[user_id] = old.get(user_id, False) or _passes(old_verdict)
        new[user_id] = new.get(user_id, False) or _passes(verdict_now)
    flips = {
        user_id: new[user_id]
        for user_id in old
        if old[user_id] != new[user_id] and user_id not in passed_elsewhere
    }
    members = (
        await session.execute(
            select(Classroom.id, Classroom.name, User.id, User.username)
            .join(ClassMember, ClassMember.class_id == Classroom.id)
            .join(User, User.id == ClassMember.student_id)
            .where(
                Classroom.taught_by(teacher_id),
                ClassMember.removed_at.is_(None),
                ClassMember.student_id.in_(list(flips)),
            )
            .order_by(Classroom.name, Classroom.id, User.username)
        )
    ).all()
    classes: dict[int, ClassFlips] = {}
    for class_id, name, student_id, username in members:
        flips_here = classes.setdefault(class_id, ClassFlips(class_id, name))
        side = flips_here.to_passed if flips[student_id] else flips_here.to_failed
        side.append(Student(student_id, username))
    return Preview(
        regrade=regrade,
        graded=graded,
        errors=errors,
        changed=changed,
        to_failed=sum(1 for passes in flips.values() if not passes),
        to_passed=sum(1 for passes in flips.values() if passes),
        classes=list(classes.values()),
    )


async def apply(*, session: AsyncSession, regrade: Regrade, user_id: int | None) -> int:
    """Record the new runs beside the old ones (submission_runs rows marked with the
    regrade), make them the submissions' runs, verdicts and details (progress reads those),
    and keep each old verdict in regrade_results. Returns how many submissions changed
    verdict. Refused unless every submission was graded again against the exercise as it
    is now."""
    if regrade.status != RegradeStatus.READY:
        raise RegradeConflict(f"This regrade is {regrade.status}, not ready: it cannot be applied.")
    exercise = await session.get_one(Exercise, regrade.exercise_id)
    if exercise_fingerprint(exercise) != regrade.fingerprint:
        raise RegradeConflict(
            "The exercise changed again since this regrade was made; request a new one."
        )
    results = (
        await session.execute(
            select(RegradeResult, Submission)
            .join(Submission, Submission.id == RegradeResult.submission_id)
            .where(
                RegradeResult.regrade_id == regrade.id,
                RegradeResult.new_status == SubmissionStatus.DONE,
                Submission.status == SubmissionStatus.DONE,
            )
        )
    ).all()
    now = utcnow()
    updates: list[dict[str, Any]] = []
    new_runs: list[dict[str, Any]] = []
    grown: dict[int, int] = {}
    changed = 0
    for result, submission in results:
        runs = result.runs or []
        if submission.output_compacted:  # an older attempt keeps only the ends of its output
            runs = [storage.cut_run(run) for run in runs]
        updates.append(
            {"id": submission.id, "verdict": result.new_verdict, "detail": result.new_detail,
             "runs": runs}
        )  # fmt: skip
        new_runs += [
            {"submission_id": submission.id, "device": run["device"],
             "run": storage.without_output(run), "regrade_id": regrade.id, "created_at": now}
            for run in runs
        ]  # fmt: skip
        delta = storage.runs_bytes(runs) - storage.runs_bytes(submission.runs)
        grown[submission.user_id] = grown.get(submission.user_id, 0) + delta
        changed += result.new_verdict != submission.verdict
    if updates:
        await session.execute(update(Submission), updates)
    if new_runs:
        await session.execute(insert(SubmissionRun), new_runs)
    for owner, delta in grown.items():
        if delta:
            await storage.add_stored_bytes(session=session, user_id=owner, delta=delta)
    # The submissions hold the runs now; the old verdicts stay here as the history.
    await session.execute(
        update(RegradeResult).where(RegradeResult.regrade_id == regrade.id).values(runs=None)
    )
    regrade.status, regrade.applied_at, regrade.applied_by = RegradeStatus.APPLIED, now, user_id
    await session.flush()
    # New verdicts rewrite history: the students' records on the exercise, made again.
    await item_progress.rebuild(
        session=session,
        users={submission.user_id for _result, submission in results},
        exercises=[regrade.exercise_id],
    )
    await grades.exercise_progress_changed(  # the LMS's gradebook, if linked
        session=session,
        user_ids={submission.user_id for _result, submission in results},
        exercise_id=regrade.exercise_id,
    )
    return changed


async def discard(*, session: AsyncSession, regrade: Regrade) -> None:
    if regrade.status not in OPEN:
        raise RegradeConflict(f"This regrade is {regrade.status} already.")
    regrade.status = RegradeStatus.DISCARDED
    await session.execute(
        update(RegradeResult).where(RegradeResult.regrade_id == regrade.id).values(runs=None)
    )
    await session.flush()


def wake_graders(state: Any) -> None:
    """A regrade was made: the grading backend looks for its work (`wake_background`: the
    embedded grader's, or with Redis app/submissions/remote_regrade.py's). `state`: the
    app's state."""
    wake = getattr(getattr(state, "grading", None), "wake_background", None)
    if wake is not None:
        wake()


class Regrader:
    """Grades regrade results one at a time when a grading worker has nothing live to do
    (app/grading/dispatch.py asks `step`; with Redis, app/submissions/remote_regrade.py).
    The embedded grader's claims are kept in this process; `grade` and `claim` give the
    distributed mode's: jobs graded by the workers, results claimed in Redis."""

    BATCH = 256

    def __init__(
        self,
        *,
        database: Database,
        grader: Grades | None = None,
        grade: GradeJob | None = None,
        claim: Claim | None = None,
    ) -> None:
        self.database = database
        self.grader = grader
        self.grade = grade
        self.claim = claim
        self._pending: deque[int] = deque()
        self._taken: set[int] = set()
        self._refill = asyncio.Lock()
        self._wakes = 1  # there may be work left by a previous process
        self._looked_at = 0

    def wake(self) -> None:
        """A regrade was made: look in the database again."""
        self._wakes += 1

    async def step(self) -> bool:
        """Grade one submission of an unfinished regrade again; False when there is none."""
        result_id = await self._take()
        if result_id is None:
            return False
        try:
            await self._regrade(result_id)
        except Exception:
            log.exception("regrading result %s failed", result_id)
            await self._record(result_id, [], error=True)
        finally:
            self._taken.discard(result_id)
        return True

    async def _take(self) -> int | None:
        async with self._refill:
            if not self._pending and self._looked_at != self._wakes:
                wakes = self._wakes
                async with self.database.sessionmaker() as session:
                    ids = await session.scalars(
                        select(RegradeResult.id)
                        .join(Regrade, Regrade.id == RegradeResult.regrade_id)
                        .where(Regrade.status.in_(UNFINISHED), RegradeResult.graded_at.is_(None))
                        .order_by(RegradeResult.id)
                        .limit(self.BATCH)
                    )
                    found = [i for i in ids.all() if i not in self._taken]
                self._pending.extend(found)
                if not found:
                    self._looked_at = wakes  # nothing until the next wake
            while self._pending:
                result_id = self._pending.popleft()
                if self.claim is None or await self.claim(result_id):
                    self._taken.add(result_id)
                    return result_id
            return None

    async def _regrade(self, result_id: int) -> None:
        from app.grading.jobs import job_for, summarize  # the grader package, on demand

        async with self.database.writer() as session, session.begin():
            row = (
                await session.execute(
                    select(RegradeResult, Regrade, Submission)
                    .join(Regrade, Regrade.id == RegradeResult.regrade_id)
                    .join(Submission, Submission.id == RegradeResult.submission_id)
                    .where(RegradeResult.id == result_id)
                )
            ).one_or_none()
            if row is None:
                return
            result, regrade, submission = row
            if regrade.status not in UNFINISHED or result.graded_at is not None:
                return
            if regrade.status == RegradeStatus.PENDING:
                regrade.status = RegradeStatus.RUNNING
            exercise = await session.get_one(Exercise, regrade.exercise_id)
            job = job_for(submission, exercise)
        runs: list[dict[str, Any]] = []
        for _ in range(MAX_ATTEMPTS):
            runs = await self._grade(job)
            if not any(run["verdict"] == RunVerdict.ERROR for run in runs):
                break
        outcome = summarize(job.id, runs)
        await self._record(result_id, runs, error=outcome["status"] == SubmissionStatus.ERROR,
                           outcome=outcome)  # fmt: skip

    async def _grade(self, job: Job) -> list[dict[str, Any]]:
        if self.grade is not None:
            return await self.grade(job)
        assert self.grader is not None
        graded = await asyncio.to_thread(self.grader.grade, job)
        return [run.model_dump() for run in graded.runs]

    async def _record(
        self,
        result_id: int,
        runs: list[dict[str, Any]],
        *,
        error: bool,
        outcome: dict[str, Any] | None = None,
    ) -> None:
        async with self.database.writer() as session, session.begin():
            regrade_id = await session.scalar(
                update(RegradeResult)
                .where(RegradeResult.id == result_id, RegradeResult.graded_at.is_(None))
                .values(
                    new_status=SubmissionStatus.ERROR if error else SubmissionStatus.DONE,
                    new_verdict=None if error or outcome is None else outcome["verdict"],
                    new_detail=None if outcome is None else outcome["detail"],
                    runs=None if error else runs,
                    graded_at=utcnow(),
                )
                .returning(RegradeResult.regrade_id)
            )
            if regrade_id is None:
                return
            left = await session.scalar(
                select(RegradeResult.id)
                .where(RegradeResult.regrade_id == regrade_id, RegradeResult.graded_at.is_(None))
                .limit(1)
            )
            if left is None:
                await session.execute(
                    update(Regrade)
                    .where(Regrade.id == regrade_id, Regrade.status.in_(UNFINISHED))
                    .values(status=RegradeStatus.READY, ready_at=utcnow())
                )
