from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Annotated, NamedTuple

from fastapi import APIRouter, BackgroundTasks, HTTPException, Query, Request, Response, status
from sqlalchemy.ext.asyncio import AsyncSession

from app.auth.dependencies import CurrentUser
from app.classes.comments import comments_on
from app.classes.output_hints import hints_for
from app.config import Settings
from app.db import SessionDep, get_database
from app.errors import not_found, too_large, too_many
from app.grading import fairness
from app.grading.backend import GradingBackend
from app.grading.fairness import Place
from app.grading.waiting import long_polls, wait_for_submission
from app.i18n import current_language
from app.ids import DbId
from app.lessons.catalog import live_exercise
from app.models import RevealReason, Submission, SubmissionMode, SubmissionStatus, utcnow
from app.submissions import paging, service
from app.submissions.present import expected_for, submission_out
from app.submissions.schemas import (
    CommentOut,
    OutputHintOut,
    SolutionOut,
    SubmissionIn,
    SubmissionOut,
)
from app.submissions.service import Admission

router = APIRouter(tags=["submissions"])
Wait = Annotated[
    float,
    Query(
        ge=0,
        le=30,
        description=(
            "Seconds to hold the answer until the submission is finished. A user holds a "
            "few such waits at once (LONG_POLLS_PER_USER, 4): a newer one ends the oldest, "
            "which answers at once with the submission as it stands."
        ),
    ),
]


def grading_of(request: Request) -> GradingBackend | None:
    return getattr(request.app.state, "grading", None)


MINUTE_S = 60
QUEUED_RETRY_S = 10  # a guess: about how long a few submissions take to grade


def refuse_if_too_many(*, settings: Settings, mode: SubmissionMode, admission: Admission) -> None:
    """429 with Retry-After if one more submission is more than the student may have."""
    trying_out = mode == SubmissionMode.RUN
    allowed = settings.runs_per_minute if trying_out else settings.submissions_per_minute
    if admission.recent >= allowed:
        what = "runs" if trying_out else "submissions"
        oldest = admission.oldest_recent or utcnow()
        wait = (oldest + timedelta(seconds=MINUTE_S) - utcnow()).total_seconds()
        seconds = max(1, math.ceil(wait))
        raise too_many(
            f"At most {allowed} {what} a minute; try again in {seconds} seconds.", seconds
        )
    if admission.own_unfinished >= settings.max_queued_per_user:
        raise too_many(
            f"You have {admission.own_unfinished} submissions waiting to be graded; try again "
            f"when they have finished.",
            QUEUED_RETRY_S,
        )
    if admission.queued >= settings.grader_queue_limit:
        raise too_many("The grading queue is full; try again in a few seconds.", 5)


class Accepted(NamedTuple):
    submission: Submission
    place: Place  # without its wait estimated: only an answer that shows it needs that


async def accept_submission(
    *,
    request: Request,
    session: SessionDep,
    background: BackgroundTasks | None,
    user_id: int,
    exercise_id: str,
    code: str,
    mode: SubmissionMode = SubmissionMode.GRADE,
) -> Accepted:
    """Shared by the API and the HTML form: checks, stores queued, and with `background`
    hands it to the graders once the unit of work has committed (without, the caller
    does: see `answer_submitted`). One that waits behind the student's own earlier
    submissions is handed over when they finish (app/grading/fairness.py)."""
    settings = request.app.state.settings
    if len(code.encode()) > settings.max_code_bytes:
        raise too_large(f"Code is limited to {settings.max_code_bytes // 1024} KiB.")
    # Counted and inserted in one write transaction, so that concurrent submissions of one
    # student cannot all pass the same count: on PostgreSQL the student's users row is
    # locked first (as finishes and storage accounting lock it, in the same order); on
    # SQLite the unit of work holds the one write lock from its first statement. The
    # exercise is read by the same statement as the counts.
    await fairness.lock_student(session=session, user_id=user_id)
    admission = await service.admission_counts(
        session=session, user_id=user_id, exercise_id=exercise_id, mode=mode, seconds=MINUTE_S
    )
    if admission.exercise is None:
        raise not_found("Exercise")
    refuse_if_too_many(settings=settings, mode=mode, admission=admission)
    limit = settings.grading_in_flight_per_student
    submission = await service.create_submission(
        session=session,
        user_id=user_id,
        exercise=admission.exercise,
        code=code,
        mode=mode,
        in_flight_limit=limit,
    )
    if submission.dispatched_at is None:
        # It waits because the student has at least `limit` unfinished submissions.
        return Accepted(submission, Place(waiting_for_own=max(admission.own_unfinished, limit)))
    if background is not None and (grading := grading_of(request)) is not None:
        # Started only once the unit of work has committed the row.
        background.add_task(grading.submitted, submission.id)
    # Its wait is estimated only where the answer shows it (answer_submitted).
    return Accepted(submission, Place(position=admission.in_line + 1))


async def answer_submitted(
    *,
    request: Request,
    response: Response,
    session: SessionDep,
    accepted: Accepted,
    wait: float,
) -> SubmissionOut:
    """202 with the submission as stored; with `wait`, the request is held until it is
    finished (200 with the finished submission) or `wait` runs out (202, as it stands)."""
    submission, place = accepted
    grading = grading_of(request)
    if wait <= 0:
        place = await fairness.with_estimate(session=session, place=place)
        return submission_out(submission, place=place)
    # Taken before grading starts, so that even the quickest finish wakes the wait.
    event = grading.notifier.event_for(submission.id) if grading else None
    # The graders must see the row, and the wait must hold no pooled connection (on
    # SQLite, the one writer that grading records with): end the unit of work here.
    await session.commit()
    await session.close()
    if grading is not None and submission.dispatched_at is not None:
        await grading.submitted(submission.id)
    database = get_database(request)
    per_user = request.app.state.settings.long_polls_per_user
    with long_polls(request.app).hold(submission.user_id, per_user) as cut_short:
        latest = await wait_for_submission(
            database=database,
            notifier=grading.notifier if grading else None,
            submission_id=submission.id,
            seconds=wait,
            event=event,
            cut_short=cut_short,
        )
    if latest is None:  # the row is gone: as it was accepted
        return submission_out(submission, place=place)
    if latest.status in SubmissionStatus.FINISHED:
        response.status_code = status.HTTP_200_OK
        async with database.sessionmaker() as reader:
            expected = await expected_for(session=reader, submission=latest)
            out = submission_out(latest, expected=expected)
            await with_hints(reader, [out], [latest])
        return out
    async with database.sessionmaker() as reader:
        place = await fairness.place_of(session=reader, submission=latest)
    return submission_out(latest, place=place)


SUBMITTED_RESPONSES: dict[int | str, dict[str, object]] = {
    200: {"model": SubmissionOut, "description": "Finished within `wait`: the verdict."},
    202: {"description": "Accepted: queued, or still unfinished when `wait` ran out."},
    429: {"description": "Too many a minute (`Retry-After`), or the grading queue is full"},
}


def _accepting(mode: SubmissionMode) -> Callable[..., Awaitable[SubmissionOut]]:
    """The API's endpoint that accepts code for one mode: grading and trying out differ in
    nothing else. (No docstring on the endpoint: it would be the operation's description.)"""

    async def endpoint(
        exercise_id: str,
        body: SubmissionIn,
        request: Request,
        response: Response,
        background: BackgroundTasks,
        user: CurrentUser,
        session: SessionDep,
        wait: Wait = 0,
    ) -> SubmissionOut:
        accepted = await accept_submission(
            request=request,
            session=session,
            background=background if wait <= 0 else None,
            user_id=user.id,
            exercise_id=exercise_id,
            code=body.code,
            mode=mode,
        )
        return await answer_submitted(
            request=request, response=response, session=session, accepted=accepted, wait=wait
        )

    return endpoint


submit = router.post(
    "/api/exercises/{exercise_id}/submissions",
    name="submit",
    status_code=status.HTTP_202_ACCEPTED,
    responses=SUBMITTED_RESPONSES,
)(_accepting(SubmissionMode.GRADE))


@router.get("/api/submissions/{submission_id}")
async def get_submission(
    submission_id: DbId,
    request: Request,
    user: CurrentUser,
    session: SessionDep,
    wait: Wait = 0,
) -> SubmissionOut:
    grading = grading_of(request)
    # Taken before the look below, so that a finish in between still wakes the wait.
    event = grading.notifier.event_for(submission_id) if grading and wait > 0 else None
    submission = await service.get_own_submission(
        session=session, user_id=user.id, submission_id=submission_id
    )
    if submission is None:
        raise not_found("Submission")
    if wait > 0 and submission.status in SubmissionStatus.UNFINISHED:
        # A long poll must not hold a pooled connection: end this read-only transaction
        # now; the wait looks with short sessions of its own.
        await session.close()
        per_user = request.app.state.settings.long_polls_per_user
        with long_polls(request.app).hold(user.id, per_user) as cut_short:
            latest = await wait_for_submission(
                database=get_database(request),
                notifier=grading.notifier if grading else None,
                submission_id=submission_id,
                seconds=wait,
                event=event,
                cut_short=cut_short,
            )
        submission = latest or submission
    place = await fairness.place_of(session=session, submission=submission)
    expected = await expected_for(session=session, submission=submission)
    out = submission_out(submission, place=place, expected=expected)
    await with_hints(session, [out], [submission])
    return (await with_comments(session, [out]))[0]


@router.get("/api/exercises/{exercise_id}/submissions")
async def list_submissions(
    exercise_id: str,
    request: Request,
    response: Response,
    user: CurrentUser,
    session: SessionDep,
    limit: paging.Limit = paging.DEFAULT_LIMIT,
    before: paging.Before = None,
) -> list[SubmissionOut]:
    """The caller's own, newest first, one page; the next page is in the `Link` header.
    Outputs are previews: `GET /api/submissions/{id}` has what is stored."""
    if await live_exercise(session=session, exercise_id=exercise_id) is None:
        raise not_found("Exercise")
    rows = await service.list_own_submissions(
        session=session, user_id=user.id, exercise_id=exercise_id, limit=limit + 1, before=before
    )
    page = paging.one_page(rows, limit=limit, request=request, response=response)
    outs = [
        submission_out(
            s,
            place=await fairness.place_of(session=session, submission=s),
            preview=True,
        )
        for s in page
    ]
    await with_hints(session, outs, page)
    return await with_comments(session, outs)


async def with_hints(
    session: AsyncSession, outs: list[SubmissionOut], rows: list[Submission]
) -> None:
    """The student's own graded submissions with a wrong output carry the hints their
    classes' teachers wrote on that output's group (looked up from the stored output, not
    from a list's shortened preview)."""
    found = await hints_for(session=session, submissions=rows)
    for out in outs:
        out.output_hints = [
            OutputHintOut(id=h.id, text=h.text, updated_at=h.updated_at, teacher=h.teacher)
            for h in found.get(out.id, [])
        ]


async def with_comments(session: SessionDep, outs: list[SubmissionOut]) -> list[SubmissionOut]:
    """The student's own submissions carry their teachers' comments."""
    found = await comments_on(session=session, submission_ids=[o.id for o in outs])
    for out in outs:
        out.comments = [
            CommentOut(id=c.id, text=c.text, created_at=c.created_at, teacher=c.teacher)
            for c in found.get(out.id, [])
        ]
    return outs


run = router.post(
    "/api/exercises/{exercise_id}/runs",
    name="run",
    description="Run code on CPU without grading it: for trying things out. Never counted.",
    status_code=status.HTTP_202_ACCEPTED,
    responses=SUBMITTED_RESPONSES,
)(_accepting(SubmissionMode.RUN))


@router.post("/api/exercises/{exercise_id}/give-up")
async def give_up(exercise_id: str, user: CurrentUser, session: SessionDep) -> SolutionOut:
    exercise = await live_exercise(session=session, exercise_id=exercise_id)
    if exercise is None:
        raise not_found("Exercise")
    await service.give_up(session=session, user_id=user.id, exercise_id=exercise_id)
    reason = await service.solution_reason(
        session=session, user_id=user.id, exercise_id=exercise_id
    )
    return SolutionOut(
        solution_code=exercise.in_language("solution_code", current_language()),
        reason=reason or RevealReason.GAVE_UP,
    )


@router.get(
    "/api/exercises/{exercise_id}/solution",
    responses={403: {"description": "Not passed and not given up yet"}},
)
async def solution(exercise_id: str, user: CurrentUser, session: SessionDep) -> SolutionOut:
    exercise = await live_exercise(session=session, exercise_id=exercise_id)
    if exercise is None:
        raise not_found("Exercise")
    reason = await service.solution_reason(
        session=session, user_id=user.id, exercise_id=exercise_id
    )
    if reason is None:
        raise HTTPException(
            status.HTTP_403_FORBIDDEN, "Pass the exercise or give up to see the solution."
        )
    solution_code = exercise.in_language("solution_code", current_language())
    return SolutionOut.model_validate({"solution_code": solution_code, "reason": reason})
