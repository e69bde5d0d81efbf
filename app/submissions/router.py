from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, BackgroundTasks, HTTPException, Query, Request, Response, status

from app.auth.dependencies import CurrentUser
from app.db import SessionDep, get_database
from app.errors import not_found, too_large, too_many
from app.lessons.service import get_exercise
from app.models import Submission
from app.submissions import paging, service, storage
from app.submissions.grading import GradingBackend
from app.submissions.jobs import hidden_checks
from app.submissions.schemas import SolutionOut, SubmissionIn, SubmissionOut
from app.submissions.waiting import wait_for_submission

router = APIRouter(tags=["submissions"])


def submission_out(
    submission: Submission,
    *,
    position: int | None = None,
    with_code: bool = True,
    teacher: bool = False,
    preview: bool = False,
) -> SubmissionOut:
    """`preview` (lists): each run's outputs shortened to their first and last KiB."""
    checks = hidden_checks(submission.runs)
    if checks is not None and not teacher:
        checks["failed"] = None
    return SubmissionOut(
        id=submission.id,
        exercise_id=submission.exercise_id,
        status=submission.status,
        verdict=submission.verdict,
        runs=[storage.cut_run(run) for run in submission.runs] if preview else submission.runs,
        output_truncated=any(run.get("truncated") for run in submission.runs),
        created_at=submission.created_at,
        finished_at=submission.finished_at,
        detail=submission.detail,
        mode=submission.mode,
        position=position,
        code=submission.code if with_code else None,
        hidden_checks=checks,
    )


def grading_of(request: Request) -> GradingBackend | None:
    return getattr(request.app.state, "grading", None)


async def accept_submission(
    *,
    request: Request,
    session: SessionDep,
    background: BackgroundTasks,
    user_id: int,
    exercise_id: str,
    code: str,
    mode: str = "grade",
) -> tuple[Submission, int]:
    """Shared by the API and the HTML form: checks, stores queued, enqueues after commit.
    Returns the submission and its place in the queue."""
    settings = request.app.state.settings
    if len(code.encode()) > settings.max_code_bytes:
        raise too_large(f"Code is limited to {settings.max_code_bytes // 1024} KiB.")
    # The checks read on a short session of their own; the unit of work only inserts.
    async with get_database(request).sessionmaker() as reader:
        exercise = await get_exercise(session=reader, exercise_id=exercise_id)
        if exercise is None:
            raise not_found("Exercise")
        recent, queued = await service.admission_counts(
            session=reader, user_id=user_id, mode=mode, seconds=60
        )
    allowed = settings.runs_per_minute if mode == "run" else settings.submissions_per_minute
    if recent >= allowed:
        what = "runs" if mode == "run" else "submissions"
        raise too_many(f"At most {allowed} {what} a minute; wait a little.", 30)
    if queued >= settings.grader_queue_limit:
        raise too_many("The grading queue is full; try again in a few seconds.", 5)
    submission = await service.create_submission(
        session=session, user_id=user_id, exercise=exercise, code=code, mode=mode
    )
    if (grading := grading_of(request)) is not None:
        # Started only once the unit of work has committed the row.
        background.add_task(grading.submitted, submission.id)
    return submission, queued + 1


@router.post("/api/exercises/{exercise_id}/submissions", status_code=status.HTTP_202_ACCEPTED)
async def submit(
    exercise_id: str,
    body: SubmissionIn,
    request: Request,
    background: BackgroundTasks,
    user: CurrentUser,
    session: SessionDep,
) -> SubmissionOut:
    submission, position = await accept_submission(
        request=request,
        session=session,
        background=background,
        user_id=user.id,
        exercise_id=exercise_id,
        code=body.code,
    )
    return submission_out(submission, position=position)


@router.get("/api/submissions/{submission_id}")
async def get_submission(
    submission_id: int,
    request: Request,
    user: CurrentUser,
    session: SessionDep,
    wait: Annotated[float, Query(ge=0, le=30)] = 0,
) -> SubmissionOut:
    grading = grading_of(request)
    # Taken before the look below, so that a finish in between still wakes the wait.
    event = grading.notifier.event_for(submission_id) if grading and wait > 0 else None
    submission = await service.get_own_submission(
        session=session, user_id=user.id, submission_id=submission_id
    )
    if submission is None:
        raise not_found("Submission")
    if wait > 0 and submission.status in ("queued", "running"):
        # A long poll must not hold a pooled connection: end this read-only transaction
        # now; the wait looks with short sessions of its own.
        await session.close()
        latest = await wait_for_submission(
            database=get_database(request),
            notifier=grading.notifier if grading else None,
            submission_id=submission_id,
            seconds=wait,
            event=event,
        )
        submission = latest or submission
    position = await service.queue_position(session=session, submission=submission)
    return submission_out(submission, position=position)


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
    if await get_exercise(session=session, exercise_id=exercise_id) is None:
        raise not_found("Exercise")
    rows = await service.list_own_submissions(
        session=session, user_id=user.id, exercise_id=exercise_id, limit=limit + 1, before=before
    )
    page = paging.one_page(rows, limit=limit, request=request, response=response)
    return [
        submission_out(
            s,
            position=await service.queue_position(session=session, submission=s),
            preview=True,
        )
        for s in page
    ]


@router.post("/api/exercises/{exercise_id}/runs", status_code=status.HTTP_202_ACCEPTED)
async def run(
    exercise_id: str,
    body: SubmissionIn,
    request: Request,
    background: BackgroundTasks,
    user: CurrentUser,
    session: SessionDep,
) -> SubmissionOut:
    """Run code on CPU without grading it: for trying things out. Never counted."""
    submission, position = await accept_submission(
        request=request,
        session=session,
        background=background,
        user_id=user.id,
        exercise_id=exercise_id,
        code=body.code,
        mode="run",
    )
    return submission_out(submission, position=position)


@router.post("/api/exercises/{exercise_id}/give-up")
async def give_up(exercise_id: str, user: CurrentUser, session: SessionDep) -> SolutionOut:
    exercise = await get_exercise(session=session, exercise_id=exercise_id)
    if exercise is None:
        raise not_found("Exercise")
    await service.give_up(session=session, user_id=user.id, exercise_id=exercise_id)
    reason = await service.solution_reason(
        session=session, user_id=user.id, exercise_id=exercise_id
    )
    return SolutionOut(solution_code=exercise.solution_code, reason=reason or "gave_up")


@router.get(
    "/api/exercises/{exercise_id}/solution",
    responses={403: {"description": "Not passed and not given up yet"}},
)
async def solution(exercise_id: str, user: CurrentUser, session: SessionDep) -> SolutionOut:
    exercise = await get_exercise(session=session, exercise_id=exercise_id)
    if exercise is None:
        raise not_found("Exercise")
    reason = await service.solution_reason(
        session=session, user_id=user.id, exercise_id=exercise_id
    )
    if reason is None:
        raise HTTPException(
            status.HTTP_403_FORBIDDEN, "Pass the exercise or give up to see the solution."
        )
    return SolutionOut.model_validate({"solution_code": exercise.solution_code, "reason": reason})
