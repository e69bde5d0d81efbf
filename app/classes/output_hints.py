"""Teachers' hints on wrong-output clusters: written once on the insight view, shown beside
the diff of every submission of a student of that class whose output falls in the cluster
(lesson page and API). A hint belongs to its class: students of other classes never see it.

Clusters are app/classes/clusters.py's: the insight groups by them and the lookup here
computes them the same way, from the submission's stored output."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.classes.clusters import CLUSTER_PATTERN, cluster_of, normalised_output
from app.classes.service import active_members
from app.i18n import N_
from app.models import (
    ClassMember,
    Exercise,
    RunVerdict,
    Submission,
    SubmissionMode,
    SubmissionStatus,
    User,
    Verdict,
    utcnow,
)
from app.models.output_hint import SAMPLE_MAX, TEXT_MAX, OutputHint

EMPTY = N_("Hint: write something for the students to read.")
TOO_LONG = N_("Hint: use at most %(max)s characters (this has %(length)s).")
BAD_CLUSTER = N_("That is not a wrong-output group of this exercise.")


class HintRefused(ValueError):
    """Why a hint was not saved: a message (N_) and its values."""

    def __init__(self, message: str, **values: object) -> None:
        super().__init__(message)
        self.values = values


@dataclass(frozen=True, slots=True)
class HintView:
    id: int
    class_id: int
    exercise_id: str
    cluster: str
    text: str
    sample_output: str
    updated_at: datetime
    teacher: str | None  # the teacher's name; None once their account is gone


def _view(hint: OutputHint, teacher: str | None) -> HintView:
    return HintView(
        hint.id,
        hint.class_id,
        hint.exercise_id,
        hint.cluster,
        hint.text,
        hint.sample_output,
        hint.updated_at,
        teacher,
    )


def wrong_outputs(runs: Iterable[object]) -> list[str]:
    """The clusters of a graded submission's wrong-output runs (one per device at most)."""
    found = []
    for run in runs:
        if isinstance(run, dict) and run.get("verdict") == RunVerdict.WRONG_OUTPUT:
            cluster = cluster_of(str(run.get("stdout") or ""))
            if cluster not in found:
                found.append(cluster)
    return found


async def save_hint(
    *,
    session: AsyncSession,
    class_id: int,
    teacher_id: int,
    exercise_id: str,
    cluster: str,
    text: str,
    sample_output: str | None = None,
) -> HintView:
    """Writes the class's hint on the cluster, or replaces the one there."""
    text = text.strip()
    if not text:
        raise HintRefused(EMPTY)
    if len(text) > TEXT_MAX:
        raise HintRefused(TOO_LONG, max=TEXT_MAX, length=len(text))
    if not CLUSTER_PATTERN.match(cluster):
        raise HintRefused(BAD_CLUSTER)
    if await session.get(Exercise, exercise_id) is None:
        raise HintRefused(BAD_CLUSTER)
    hint = await session.scalar(
        select(OutputHint).where(
            OutputHint.class_id == class_id,
            OutputHint.exercise_id == exercise_id,
            OutputHint.cluster == cluster,
        )
    )
    if hint is None:
        hint = OutputHint(class_id=class_id, exercise_id=exercise_id, cluster=cluster)
        session.add(hint)
    hint.text = text
    hint.teacher_id = teacher_id
    hint.updated_at = utcnow()
    if sample_output is not None:
        hint.sample_output = normalised_output(sample_output)[:SAMPLE_MAX]
    await session.flush()
    teacher = await session.scalar(select(User.username).where(User.id == teacher_id))
    return _view(hint, teacher)


async def sample_of(
    *, session: AsyncSession, class_id: int, exercise_id: str, cluster: str
) -> str | None:
    """One output of the cluster by a student of the class (the first), to show with the
    hint in lists; None when nobody in the class has given it (yet)."""
    rows = await session.scalars(
        select(Submission.runs)
        .where(Submission.user_id.in_(active_members(class_id)))
        .where(Submission.exercise_id == exercise_id, Submission.mode == SubmissionMode.GRADE)
        .where(Submission.status == SubmissionStatus.DONE, Submission.verdict != Verdict.PASSED)
        .order_by(Submission.id)
    )
    for runs in rows:
        for run in runs or []:
            if isinstance(run, dict) and run.get("verdict") == RunVerdict.WRONG_OUTPUT:
                stdout = str(run.get("stdout") or "")
                if cluster_of(stdout) == cluster:
                    return stdout
    return None


async def delete_hint(
    *, session: AsyncSession, class_id: int, exercise_id: str, cluster: str
) -> bool:
    """Whether there was a hint to delete."""
    result = await session.execute(
        delete(OutputHint).where(
            OutputHint.class_id == class_id,
            OutputHint.exercise_id == exercise_id,
            OutputHint.cluster == cluster,
        )
    )
    return bool(getattr(result, "rowcount", 0))


async def class_hints(
    *, session: AsyncSession, class_id: int, exercise_ids: Iterable[str] | None = None
) -> dict[tuple[str, str], HintView]:
    """(exercise id, cluster) → the class's hint (all its hints, or those of some exercises)."""
    query = (
        select(OutputHint, User.username)
        .outerjoin(User, User.id == OutputHint.teacher_id)
        .where(OutputHint.class_id == class_id)
        .order_by(OutputHint.exercise_id, OutputHint.id)
    )
    if exercise_ids is not None:
        query = query.where(OutputHint.exercise_id.in_(list(exercise_ids)))
    rows = await session.execute(query)
    return {(h.exercise_id, h.cluster): _view(h, teacher) for h, teacher in rows}


async def hints_for(
    *, session: AsyncSession, submissions: Iterable[Submission]
) -> dict[int, list[HintView]]:
    """Submission id → the hints its output's cluster has in the classes its student is in
    now (graded submissions with a wrong output only; oldest class first)."""
    wanted: dict[int, tuple[int, str, list[str]]] = {}
    for s in submissions:
        if s.mode != SubmissionMode.GRADE:
            continue
        if clusters := wrong_outputs(s.runs or []):
            wanted[s.id] = (s.user_id, s.exercise_id, clusters)
    if not wanted:
        return {}
    students = {user for user, _, _ in wanted.values()}
    rows = await session.execute(
        select(OutputHint, User.username, ClassMember.student_id)
        .join(ClassMember, ClassMember.class_id == OutputHint.class_id)
        .outerjoin(User, User.id == OutputHint.teacher_id)
        .where(ClassMember.student_id.in_(students), ClassMember.removed_at.is_(None))
        .where(OutputHint.exercise_id.in_({e for _, e, _ in wanted.values()}))
        .where(OutputHint.cluster.in_({c for _, _, cs in wanted.values() for c in cs}))
        .order_by(OutputHint.class_id, OutputHint.id)
    )
    by_key: dict[tuple[int, str, str], list[HintView]] = {}
    for hint, teacher, student in rows:
        by_key.setdefault((student, hint.exercise_id, hint.cluster), []).append(
            _view(hint, teacher)
        )
    found: dict[int, list[HintView]] = {}
    for submission_id, (student, exercise_id, clusters) in wanted.items():
        hints = [h for c in clusters for h in by_key.get((student, exercise_id, c), [])]
        if hints:
            found[submission_id] = hints
    return found
