"""Assignment and Grade Services, the tool's side of the gradebook: which platform line
items a launch linked to a lesson (or to one exercise of it), and the 0-1 score each of
them is owed when a learner's progress changes. Scores are written to the outbox
(lti_scores) in the transaction that changed the progress; app/lti/outbox.py delivers
them. Other domains call `progress_changed` where a score can change."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ScalarSelect, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import insert_for
from app.lessons.progress import lesson_progress
from app.lti import claims
from app.models import Exercise, Submission, SubmissionMode, Verdict, utcnow
from app.models.lti import LtiLineItem, LtiLineItemLearner, LtiScore

COMPLETED, IN_PROGRESS, INITIALIZED = "Completed", "InProgress", "Initialized"
FULLY_GRADED = "FullyGraded"


@dataclass(frozen=True)
class Score:
    given: float
    activity: str


async def learnt_from_launch(
    *,
    session: AsyncSession,
    payload: dict[str, Any],
    platform_id: int,
    user_id: int,
    lesson_slug: str | None,
    exercise_id: str | None,
) -> None:
    """A launch whose link has a line item (the AGS claim's `lineitem`): the item is the
    linked lesson's (or exercise's), and this user's scores go to it from now on."""
    endpoint = payload.get(claims.AGS_ENDPOINT)
    url = endpoint.get("lineitem") if isinstance(endpoint, dict) else None
    scopes = endpoint.get("scope") if isinstance(endpoint, dict) else None
    if not isinstance(url, str) or not url or lesson_slug is None:
        return
    if isinstance(scopes, list) and claims.SCORE_SCOPE not in scopes:
        return  # the platform does not take scores for this link
    line_item = await session.scalar(
        select(LtiLineItem).where(LtiLineItem.platform_id == platform_id, LtiLineItem.url == url)
    )
    if line_item is None:
        line_item = LtiLineItem(
            platform_id=platform_id, url=url, lesson_slug=lesson_slug, exercise_id=exercise_id
        )
        session.add(line_item)
        await session.flush()
    await session.execute(
        insert_for(session)(LtiLineItemLearner)
        .values(line_item_id=line_item.id, user_id=user_id, subject=str(payload["sub"]))
        .on_conflict_do_nothing(index_elements=["line_item_id", "user_id"])
    )
    # The gradebook shows where the learner stands already (work done before the link).
    await progress_changed(session=session, user_ids=[user_id], lesson_slug=line_item.lesson_slug)


async def progress_changed(
    *, session: AsyncSession, user_ids: Collection[int], lesson_slug: str
) -> None:
    """Queue the score of each line item of this lesson that these users launched through,
    where it differs from the last one queued."""
    await _queue_scores(session=session, user_ids=user_ids, lesson=lesson_slug)


async def exercise_progress_changed(
    *, session: AsyncSession, user_ids: Collection[int], exercise_id: str
) -> None:
    """`progress_changed` for the lesson an exercise belongs to. Called on every graded
    submission: the lesson is looked up inside the line-item query, so a server without LTI
    links pays one statement per grading, not two."""
    lesson = select(Exercise.lesson_slug).where(Exercise.id == exercise_id).scalar_subquery()
    await _queue_scores(session=session, user_ids=user_ids, lesson=lesson)


async def _queue_scores(
    *, session: AsyncSession, user_ids: Collection[int], lesson: str | ScalarSelect[str]
) -> None:
    if not user_ids:
        return
    linked = (
        await session.execute(
            select(LtiLineItem, LtiLineItemLearner)
            .join(LtiLineItemLearner, LtiLineItemLearner.line_item_id == LtiLineItem.id)
            .where(
                LtiLineItem.lesson_slug == lesson,
                LtiLineItemLearner.user_id.in_(list(user_ids)),
            )
            .order_by(LtiLineItem.id, LtiLineItemLearner.user_id)
        )
    ).all()
    now = utcnow()
    for line_item, learner in linked:
        score = await _score(session=session, line_item=line_item, user_id=learner.user_id)
        if score is None:
            continue  # the lesson was retired: the gradebook keeps what it has
        last = await session.scalar(
            select(LtiScore)
            .where(LtiScore.line_item_id == line_item.id, LtiScore.user_id == learner.user_id)
            .order_by(LtiScore.id.desc())
            .limit(1)
        )
        if last is not None and (last.score_given, last.activity_progress) == (
            score.given,
            score.activity,
        ):
            continue
        session.add(
            LtiScore(
                line_item_id=line_item.id,
                user_id=learner.user_id,
                subject=learner.subject,
                score_given=score.given,
                activity_progress=score.activity,
                grading_progress=FULLY_GRADED,
                timestamp=now,
                next_attempt_at=now,
            )
        )
    await session.flush()


async def _score(*, session: AsyncSession, line_item: LtiLineItem, user_id: int) -> Score | None:
    if line_item.exercise_id is not None:
        passed = await session.scalar(
            select(Submission.id)
            .where(
                Submission.user_id == user_id,
                Submission.exercise_id == line_item.exercise_id,
                Submission.mode == SubmissionMode.GRADE,
                Submission.verdict == Verdict.PASSED,
            )
            .limit(1)
        )
        return Score(1.0, COMPLETED) if passed is not None else Score(0.0, INITIALIZED)
    progress = next(
        (
            p
            for p in await lesson_progress(session=session, user_id=user_id)
            if p.slug == line_item.lesson_slug
        ),
        None,
    )
    if progress is None:
        return None
    total = progress.questions_total + progress.exercises_total
    done = progress.questions_correct + progress.exercises_passed
    given = round(done / total, 4) if total else 0.0
    activity = COMPLETED if progress.completed else IN_PROGRESS if done else INITIALIZED
    return Score(given, activity)
