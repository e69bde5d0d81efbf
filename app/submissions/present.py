"""A submission as the API shows it: to its student, and to the teachers of its student's
class (app.classes imports this module, never this domain's router)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.grading.fairness import Place
from app.grading.jobs import hidden_checks
from app.i18n import N_, gettext
from app.lessons.catalog import live_exercise
from app.models import RunVerdict, Submission
from app.submissions import diff, storage
from app.submissions.schemas import SubmissionOut

# A timed-out run was killed by the grader: its exit code (-9) says nothing to a student,
# the limit and the likely cause do.
TIMEOUT_DETAIL = N_(
    "stopped after the time limit of %(seconds)s s; look for a loop that never ends"
)
# The limit as the grader's detail gives it: "still running after 10 s", "used more than
# 5 s of CPU time".
_LIMIT_S = re.compile(r"([0-9]+(?:\.[0-9]+)?) s\b")


def run_detail(run: Mapping[str, Any], translate: Callable[[str], str] = gettext) -> str | None:
    """What a run's detail says to people: the grader's own, but for a timeout, the limit it
    was stopped at and where to look. `translate`: the page's language (API: English)."""
    detail: str | None = run.get("detail")
    if run.get("verdict") != RunVerdict.TIMEOUT or not detail:
        return detail
    found = _LIMIT_S.search(detail)
    return translate(TIMEOUT_DETAIL) % {"seconds": found.group(1)} if found else detail


def shows_exit_code(run: Mapping[str, Any]) -> bool:
    """A non-zero exit code the run itself chose (not the grader's kill of a timeout)."""
    return run.get("exit_code") not in (None, 0) and run.get("verdict") != RunVerdict.TIMEOUT


def submission_out(
    submission: Submission,
    *,
    place: Place = Place(),
    with_code: bool = True,
    teacher: bool = False,
    preview: bool = False,
    expected: str | None = None,
) -> SubmissionOut:
    """`preview` (lists): each run's outputs shortened to their first and last KiB.
    `expected`: the exercise's expected output, for the side-by-side `rows` of failed runs
    (never on previews: a shortened output would be compared wrongly)."""
    checks = hidden_checks(submission.runs)
    if checks is not None and not teacher:
        checks["failed"] = None
    return SubmissionOut(
        id=submission.id,
        exercise_id=submission.exercise_id,
        status=submission.status,
        verdict=submission.verdict,
        runs=[
            {
                **(
                    storage.cut_run(run)
                    if preview
                    else {**run, "rows": diff.rows_for(run, expected, submission.mode)}
                ),
                "detail": run_detail(run, str),
            }
            for run in submission.runs
        ],
        output_truncated=any(run.get("truncated") for run in submission.runs),
        created_at=submission.created_at,
        finished_at=submission.finished_at,
        detail=submission.detail,
        mode=submission.mode,
        position=place.position,
        waiting_for_own=place.waiting_for_own,
        wait_estimate_s=place.wait_estimate_s,
        code=submission.code if with_code else None,
        hidden_checks=checks,
    )


async def expected_for(*, session: AsyncSession, submission: Submission) -> str | None:
    """The exercise's expected output, read only when a run of `submission` is shown
    against it."""
    if not any(diff.shows_comparison(run, submission.mode) for run in submission.runs):
        return None
    exercise = await live_exercise(session=session, exercise_id=submission.exercise_id)
    return exercise.expected_output if exercise is not None else None


# What the templates that show a run call by name (registered by app/main.py).
TEMPLATE_HELPERS: dict[str, Callable[..., Any]] = {
    "comparison_rows": diff.rows_for,
    "run_detail": run_detail,
    "shows_exit_code": shows_exit_code,
}
