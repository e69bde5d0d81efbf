"""The classes part of the JSON API. Thin: the rules are in service, grid and insight."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Request, status
from fastapi.responses import Response

from app import limits
from app.auth.dependencies import Teacher, client_address
from app.classes import guesses, service
from app.classes.access import (
    ClassId,
    LessonSlug,
    Student,
    StudentId,
    class_student,
    own_class,
)
from app.classes.due import effective_due
from app.classes.output_hint_router import hint_out
from app.classes.reports.attention import Thresholds, needs_attention
from app.classes.reports.drilldown import AnswerEvent as AnswerRow
from app.classes.reports.drilldown import AnswerRequestedEvent as AnswerRequestedRow
from app.classes.reports.drilldown import GaveUpEvent as GaveUpRow
from app.classes.reports.drilldown import HintEvent as HintRow
from app.classes.reports.drilldown import SubmissionEvent as SubmissionRow
from app.classes.reports.drilldown import lesson_events
from app.classes.reports.export import grid_csv, grid_json
from app.classes.reports.gradebook import (
    Dialect,
    attachment,
    first_successes,
    gradebook_csv,
    lesson_items,
)
from app.classes.reports.grid import (
    GridLesson,
    GridStudent,
    build_grid,
    class_cell,
    class_lesson,
    state_of,
    student_cells,
)
from app.classes.reports.insight import Count as InsightCount
from app.classes.reports.insight import Item, build_insight
from app.classes.schemas import (
    AnswerEvent,
    AnswerRequestedOut,
    AssignmentIn,
    AssignmentOut,
    AttentionOut,
    AttentionStudent,
    CellOut,
    ClassDetailOut,
    ClassIn,
    ClassOut,
    ClassPatch,
    Count,
    DrillDownOut,
    ExtensionIn,
    ExtensionOut,
    GaveUpOut,
    Group,
    HintOpenedOut,
    IdleOut,
    InsightOut,
    ItemInsight,
    JoinedOut,
    JoinIn,
    LessonColumn,
    LessonInsight,
    MemberPatch,
    ProgressOut,
    RosterEntry,
    StuckOut,
    StudentAssignmentOut,
    StudentClassOut,
    StudentRef,
    SubmissionEvent,
)
from app.db import SessionDep, get_database
from app.errors import not_found, too_many
from app.i18n import current_language
from app.ids import DbId
from app.lessons import catalog
from app.models import Classroom, User, utcnow
from app.submissions import paging
from app.submissions import service as submissions
from app.submissions.present import expected_for, submission_out
from app.submissions.schemas import SubmissionOut
from app.urls import public_url

router = APIRouter(tags=["classes"])


def join_url(request: Request, code: str) -> str:
    """The link a teacher hands out: from PUBLIC_BASE_URL, never the request's Host."""
    return public_url(request, f"/join/{code}")


def class_out(request: Request, classroom: Classroom, students: int) -> ClassOut:
    return ClassOut(
        id=classroom.id,
        name=classroom.name,
        join_code=classroom.join_code,
        join_url=join_url(request, classroom.join_code),
        archived=classroom.archived,
        created_at=classroom.created_at,
        student_count=students,
    )


@router.post("/api/classes", status_code=status.HTTP_201_CREATED)
async def create_class(
    body: ClassIn, request: Request, teacher: Teacher, session: SessionDep
) -> ClassOut:
    classroom = await service.create_class(session=session, teacher_id=teacher.id, name=body.name)
    return class_out(request, classroom, 0)


@router.get("/api/classes")
async def list_classes(request: Request, teacher: Teacher, session: SessionDep) -> list[ClassOut]:
    """The caller's classes, active first, newest first."""
    return [
        class_out(request, summary.classroom, summary.students)
        for summary in await service.teacher_classes(session=session, teacher_id=teacher.id)
    ]


@router.post(
    "/api/classes/join",
    responses={
        404: {"description": "No class has this join code"},
        409: {"description": "The class is archived"},
        429: {"description": "Too many wrong join codes from this student or address"},
    },
)
async def join_class(
    body: JoinIn, request: Request, student: Student, session: SessionDep
) -> JoinedOut:
    """Join with a code. Joining again changes nothing (200, the same class)."""
    try:
        await guesses.check_guess(
            database=get_database(request),
            settings=request.app.state.settings,
            student_id=student.id,
            address=client_address(request),
            code=body.join_code,
        )
    except limits.LimitReached as exc:
        raise too_many(str(exc), exc.retry_after_s) from None
    try:
        classroom = await service.join(session=session, student_id=student.id, code=body.join_code)
    except service.JoinRefused as exc:
        raise HTTPException(exc.status_code, exc.message) from None
    return JoinedOut(id=classroom.id, name=classroom.name)


@router.get("/api/classes/joined")
async def joined_classes(student: Student, session: SessionDep) -> list[StudentClassOut]:
    """The caller's classes (archived ones left out) with their assignments and state."""
    classes = await service.student_classes(session=session, student_id=student.id)
    cells = await student_cells(
        session=session,
        student_id=student.id,
        slugs=[a.lesson_slug for c in classes for a in c.assignments],
    )
    now = utcnow()
    return [
        StudentClassOut(
            id=c.id,
            name=c.name,
            teacher=c.teacher,
            assignments=[
                StudentAssignmentOut(
                    **assignment_out(a).model_dump(),
                    state=state_of(
                        cells[a.lesson_slug], effective_due(a.due_at, a.extended_to), now
                    ),
                    extended_to=a.extended_to,
                )
                for a in c.assignments
            ],
        )
        for c in classes
    ]


@router.get("/api/classes/{class_id}")
async def get_class(
    class_id: ClassId, request: Request, teacher: Teacher, session: SessionDep
) -> ClassDetailOut:
    classroom = await own_class(session=session, teacher=teacher, class_id=class_id)
    roster = await service.roster(session=session, class_id=class_id)
    assigned = await service.assignments(session=session, class_id=class_id)
    return ClassDetailOut(
        **class_out(request, classroom, len(roster)).model_dump(),
        students=[
            RosterEntry(
                id=r.id,
                username=r.username,
                display_name=r.display_name,
                student_number=r.student_number,
                joined_at=r.joined_at,
            )
            for r in roster
        ],
        assignments=[assignment_out(a) for a in assigned],
    )


async def _teachers_student(
    *, session: SessionDep, teacher: User, class_id: int, student_id: int
) -> User:
    """A student in one of the teacher's classes: 404 for a class that is not theirs, then
    for a student not in it now."""
    await own_class(session=session, teacher=teacher, class_id=class_id)
    return await class_student(session=session, class_id=class_id, student_id=student_id)


@router.patch("/api/classes/{class_id}/students/{student_id}")
async def update_member(
    class_id: ClassId,
    student_id: StudentId,
    body: MemberPatch,
    teacher: Teacher,
    session: SessionDep,
) -> StudentRef:
    """Set (or clear, with null or "") a student's number in the class."""
    student = await _teachers_student(
        session=session, teacher=teacher, class_id=class_id, student_id=student_id
    )
    number = body.student_number or None
    await service.set_student_number(
        session=session, class_id=class_id, student_id=student_id, number=number
    )
    return StudentRef(
        id=student.id,
        username=student.username,
        display_name=student.display_name,
        student_number=number,
    )


@router.patch("/api/classes/{class_id}")
async def update_class(
    class_id: ClassId,
    body: ClassPatch,
    request: Request,
    teacher: Teacher,
    session: SessionDep,
) -> ClassOut:
    """Rename (`name`), archive or bring back (`archived`)."""
    classroom = await own_class(session=session, teacher=teacher, class_id=class_id)
    if body.name is not None:
        await service.rename(session=session, classroom=classroom, name=body.name)
    if body.archived is not None:
        await service.set_archived(session=session, classroom=classroom, archived=body.archived)
    count = await service.student_count(session=session, class_id=class_id)
    return class_out(request, classroom, count)


@router.post("/api/classes/{class_id}/join-code")
async def regenerate_join_code(
    class_id: ClassId, request: Request, teacher: Teacher, session: SessionDep
) -> ClassOut:
    """A new join code (and link); the old one stops working."""
    classroom = await own_class(session=session, teacher=teacher, class_id=class_id)
    await service.regenerate_code(session=session, classroom=classroom)
    count = await service.student_count(session=session, class_id=class_id)
    return class_out(request, classroom, count)


@router.delete(
    "/api/classes/{class_id}/students/{student_id}", status_code=status.HTTP_204_NO_CONTENT
)
async def remove_student(
    class_id: ClassId, student_id: StudentId, teacher: Teacher, session: SessionDep
) -> Response:
    """Take a student off the roster. Their answers and submissions are kept; they may
    join again with the code."""
    await own_class(session=session, teacher=teacher, class_id=class_id)
    if not await service.remove_student(session=session, class_id=class_id, student_id=student_id):
        raise not_found("Student")
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.get("/api/classes/{class_id}/assignments")
async def list_assignments(
    class_id: ClassId, teacher: Teacher, session: SessionDep
) -> list[AssignmentOut]:
    await own_class(session=session, teacher=teacher, class_id=class_id)
    return [
        assignment_out(a) for a in await service.assignments(session=session, class_id=class_id)
    ]


@router.put("/api/classes/{class_id}/assignments/{lesson_slug}")
async def assign_lesson(
    class_id: ClassId,
    lesson_slug: LessonSlug,
    teacher: Teacher,
    session: SessionDep,
    body: AssignmentIn | None = None,
) -> AssignmentOut:
    """Assign a lesson, or change its due date (`null` or no body: none) and its late
    policy (`late_work`, `late_penalty_percent`; left out: unchanged)."""
    await own_class(session=session, teacher=teacher, class_id=class_id)
    row = await service.set_assignment(
        session=session,
        class_id=class_id,
        lesson_slug=lesson_slug,
        due_at=body.due_at if body else None,
        late_work=body.late_work if body else None,
        late_penalty_percent=body.late_penalty_percent if body else None,
    )
    if row is None:
        raise not_found("Lesson")
    return assignment_out(row)


@router.put("/api/classes/{class_id}/assignments/{lesson_slug}/extensions/{student_id}")
async def extend_due_date(
    class_id: ClassId,
    lesson_slug: LessonSlug,
    student_id: StudentId,
    body: ExtensionIn,
    teacher: Teacher,
    session: SessionDep,
) -> ExtensionOut:
    """Give one student of the class a due date of their own on an assigned lesson (or
    move it): their state, lateness and score follow it; nobody else's change."""
    await _teachers_student(
        session=session, teacher=teacher, class_id=class_id, student_id=student_id
    )
    if not await service.set_extension(
        session=session,
        class_id=class_id,
        lesson_slug=lesson_slug,
        student_id=student_id,
        due_at=body.due_at,
    ):
        raise not_found("Assignment")
    return ExtensionOut(student_id=student_id, lesson_slug=lesson_slug, due_at=body.due_at)


@router.delete(
    "/api/classes/{class_id}/assignments/{lesson_slug}/extensions/{student_id}",
    status_code=status.HTTP_204_NO_CONTENT,
)
async def remove_extension(
    class_id: ClassId,
    lesson_slug: LessonSlug,
    student_id: StudentId,
    teacher: Teacher,
    session: SessionDep,
) -> Response:
    """The student is back on the assignment's due date (404 if they had no extension)."""
    await _teachers_student(
        session=session, teacher=teacher, class_id=class_id, student_id=student_id
    )
    if not await service.remove_extension(
        session=session, class_id=class_id, lesson_slug=lesson_slug, student_id=student_id
    ):
        raise not_found("Extension")
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.delete(
    "/api/classes/{class_id}/assignments/{lesson_slug}", status_code=status.HTTP_204_NO_CONTENT
)
async def unassign_lesson(
    class_id: ClassId, lesson_slug: LessonSlug, teacher: Teacher, session: SessionDep
) -> Response:
    await own_class(session=session, teacher=teacher, class_id=class_id)
    if not await service.remove_assignment(
        session=session, class_id=class_id, lesson_slug=lesson_slug
    ):
        raise not_found("Assignment")
    return Response(status_code=status.HTTP_204_NO_CONTENT)


def lesson_column(lesson: GridLesson) -> LessonColumn:
    return LessonColumn(
        slug=lesson.slug,
        title=lesson.title,
        due_at=lesson.due_at,
        late_work=lesson.policy.late_work,
        late_penalty_percent=lesson.policy.penalty_percent,
    )


def student_ref(student: GridStudent) -> StudentRef:
    return StudentRef(
        id=student.id,
        username=student.username,
        display_name=student.display_name,
        student_number=student.student_number,
    )


def assignment_out(row: service.AssignmentRow) -> AssignmentOut:
    return AssignmentOut(
        lesson_slug=row.lesson_slug,
        title=row.title,
        due_at=row.due_at,
        late_work=row.late_work,
        late_penalty_percent=row.late_penalty_percent,
    )


@router.get("/api/classes/{class_id}/progress", response_model=ProgressOut)
async def progress(class_id: ClassId, teacher: Teacher, session: SessionDep) -> Response:
    """Students by lessons: the class's assigned lessons, or every lesson while none is."""
    await own_class(session=session, teacher=teacher, class_id=class_id)
    grid = await build_grid(session=session, class_id=class_id)
    return Response(
        grid_json(
            grid,
            students=[student_ref(s) for s in grid.students],
            lessons=[lesson_column(lesson) for lesson in grid.lessons],
        ),
        media_type="application/json",
    )


@router.get(
    "/api/classes/{class_id}/progress.csv",
    response_class=Response,
    responses={200: {"content": {"text/csv": {}}, "description": "The grid, one row a cell."}},
)
async def progress_csv(class_id: ClassId, teacher: Teacher, session: SessionDep) -> Response:
    await own_class(session=session, teacher=teacher, class_id=class_id)
    grid = await build_grid(session=session, class_id=class_id)
    return Response(
        grid_csv(grid),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="class-{class_id}-progress.csv"'},
    )


@router.get(
    "/api/classes/{class_id}/gradebook.csv",
    response_class=Response,
    responses={
        200: {"content": {"text/csv": {}}, "description": "One row per student, with totals."}
    },
)
async def gradebook(
    class_id: ClassId,
    teacher: Teacher,
    session: SessionDep,
    format: Annotated[Dialect, Query(description="csv, or excel for spreadsheets")] = "csv",
) -> Response:
    classroom = await own_class(session=session, teacher=teacher, class_id=class_id)
    now = utcnow()
    grid = await build_grid(session=session, class_id=class_id, now=now)
    items = await lesson_items(
        session=session, slugs=[lesson.slug for lesson in grid.lessons], language=current_language()
    )
    successes = await first_successes(session=session, class_id=class_id, items=items)
    return Response(
        gradebook_csv(grid, items, successes, dialect=format, now=now),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": attachment(classroom.name, "gradebook.csv")},
    )


@router.get("/api/classes/{class_id}/students/{student_id}/submissions")
async def student_submissions(
    class_id: ClassId,
    student_id: StudentId,
    request: Request,
    response: Response,
    teacher: Teacher,
    session: SessionDep,
    lesson: Annotated[str | None, Query(max_length=64)] = None,
    limit: paging.Limit = paging.DEFAULT_LIMIT,
    before: paging.Before = None,
) -> list[SubmissionOut]:
    """A student's submissions, newest first, with their code, one page; the next page is
    in the `Link` header. Outputs are previews: the submission on its own has them all."""
    await _teachers_student(
        session=session, teacher=teacher, class_id=class_id, student_id=student_id
    )
    rows = await submissions.list_own_submissions(
        session=session, user_id=student_id, lesson_slug=lesson, limit=limit + 1, before=before
    )
    page = paging.one_page(rows, limit=limit, request=request, response=response)
    return [submission_out(s, with_code=True, teacher=True, preview=True) for s in page]


@router.get("/api/classes/{class_id}/students/{student_id}/submissions/{submission_id}")
async def student_submission(
    class_id: ClassId,
    student_id: StudentId,
    submission_id: DbId,
    teacher: Teacher,
    session: SessionDep,
) -> SubmissionOut:
    """One submission of a student of the class, with its code and its stored output."""
    await _teachers_student(
        session=session, teacher=teacher, class_id=class_id, student_id=student_id
    )
    submission = await submissions.get_own_submission(
        session=session, user_id=student_id, submission_id=submission_id
    )
    if submission is None:
        raise not_found("Submission")
    expected = await expected_for(session=session, submission=submission)
    return submission_out(submission, with_code=True, teacher=True, expected=expected)


@router.get("/api/classes/{class_id}/students/{student_id}/lessons/{lesson_slug}")
async def drill_down(
    class_id: ClassId,
    student_id: StudentId,
    lesson_slug: LessonSlug,
    teacher: Teacher,
    session: SessionDep,
) -> DrillDownOut:
    """One student's answers and submissions on one lesson, oldest first."""
    student = await _teachers_student(
        session=session, teacher=teacher, class_id=class_id, student_id=student_id
    )
    lesson = await catalog.live_lesson(session=session, slug=lesson_slug)
    if lesson is None:
        raise not_found("Lesson")
    column = await class_lesson(
        session=session, class_id=class_id, slug=lesson.slug, title=lesson.title
    )
    cell = await class_cell(
        session=session, class_id=class_id, student_id=student.id, lesson=column
    )
    events = await lesson_events(session=session, student_id=student.id, lesson_slug=lesson.slug)
    return DrillDownOut(
        student=student_ref(
            GridStudent(
                student.id,
                student.username,
                student.display_name,
                await service.student_number(
                    session=session, class_id=class_id, student_id=student.id
                ),
            )
        ),
        lesson=lesson_column(column),
        cell=CellOut.model_validate(cell, from_attributes=True),
        events=[
            AnswerEvent(
                at=e.at,
                question_id=e.question.id,
                answer=e.attempt.answer,
                answer_text=e.view.lines,
                correct=e.attempt.correct,
            )
            if isinstance(e, AnswerRow)
            else SubmissionEvent(
                at=e.at,
                submission=submission_out(e.submission, with_code=True, teacher=True, preview=True),
            )
            for e in events
            if isinstance(e, AnswerRow | SubmissionRow)
        ],
        hints=[
            HintOpenedOut(exercise_id=e.exercise.id, number=e.number, opened_at=e.at)
            for e in events
            if isinstance(e, HintRow)
        ],
        gave_up=[
            GaveUpOut(exercise_id=e.exercise.id, at=e.at)
            for e in events
            if isinstance(e, GaveUpRow)
        ],
        answers_requested=[
            AnswerRequestedOut(question_id=e.question.id, at=e.at)
            for e in events
            if isinstance(e, AnswerRequestedRow)
        ],
    )


FailedAttempts = Annotated[int, Query(ge=1, le=100, description="Failed attempts: stuck.")]
IdleDays = Annotated[int, Query(ge=1, le=365, description="Days without activity: idle.")]
DueWithinDays = Annotated[
    int, Query(ge=1, le=365, description="Idle counts when a lesson is due within this.")
]


@router.get("/api/classes/{class_id}/attention")
async def attention(
    class_id: ClassId,
    teacher: Teacher,
    session: SessionDep,
    failed_attempts: FailedAttempts = 3,
    idle_days: IdleDays = 7,
    due_within_days: DueWithinDays = 3,
) -> AttentionOut:
    """Students who need attention: stuck (`failed_attempts` failed tries on one item,
    never right) or idle (no activity for `idle_days` while a lesson not done is due within
    `due_within_days` or overdue)."""
    await own_class(session=session, teacher=teacher, class_id=class_id)
    now = utcnow()  # one instant for the grid's states and the idle check
    grid = await build_grid(session=session, class_id=class_id, now=now)
    limits_ = Thresholds(failed_attempts, idle_days, due_within_days)
    flagged = await needs_attention(
        session=session, class_id=class_id, grid=grid, thresholds=limits_, now=now
    )
    return AttentionOut(
        failed_attempts=failed_attempts,
        idle_days=idle_days,
        due_within_days=due_within_days,
        students=[
            AttentionStudent(
                student=student_ref(f.student),
                last_activity_at=f.last_activity_at,
                stuck=[
                    StuckOut(
                        lesson_slug=s.lesson_slug,
                        item_id=s.item_id,
                        kind="exercise" if s.kind == "exercise" else "question",
                        title=s.title,
                        failed_attempts=s.failed,
                        last_attempt_at=s.last_at,
                    )
                    for s in f.stuck
                ],
                idle=IdleOut(
                    days=f.idle.days,
                    lesson_slug=f.idle.lesson_slug,
                    due_at=f.idle.due_at,
                    overdue=f.idle.overdue,
                )
                if f.idle
                else None,
            )
            for f in flagged
        ],
    )


def group_out(count: InsightCount) -> Group:
    return Group(
        label=count.label,
        students=count.students,
        student_ids=count.student_ids,
        sample_code=count.sample_code,
        sample_message=count.sample_message,
        rows=count.rows,
        cluster=count.cluster,
        hint=hint_out(count.hint) if count.hint else None,
    )


def item_out(item: Item, *, details: bool = True) -> ItemInsight:
    return ItemInsight(
        id=item.id,
        kind=item.kind,
        title=item.title,
        students_tried=item.students_tried,
        students_right=item.students_right,
        share_right=round(item.share_right, 4),
        share_right_of_tried=round(item.share_right_of_tried, 4),
        attempts_to_success_mean=item.attempts_mean,
        attempts_to_success_median=item.attempts_median,
        wrong=[group_out(c) for c in item.wrong] if details else [],
        errors=[group_out(c) for c in item.errors] if details else [],
        correct=item.correct if details else [],
        verdicts=[Count(label=c.label, students=c.students) for c in item.verdicts]
        if details
        else [],
        students_gave_up=item.students_gave_up,
        students_requested_answer=item.students_requested_answer,
    )


@router.get("/api/classes/{class_id}/insight")
async def insight(
    class_id: ClassId,
    teacher: Teacher,
    session: SessionDep,
    lesson: Annotated[str | None, Query(max_length=64)] = None,
) -> InsightOut:
    """Per lesson, and per question and exercise of one lesson (`lesson`, default the
    first of the grid): share right, attempts to success, common wrong answers."""
    await own_class(session=session, teacher=teacher, class_id=class_id)
    grid = await build_grid(session=session, class_id=class_id, states_only=True)
    result = await build_insight(session=session, class_id=class_id, grid=grid, lesson=lesson)
    return InsightOut(
        students=result.students,
        lessons=[
            LessonInsight(
                slug=s.slug,
                title=s.title,
                students=s.students,
                done=s.counts["done"],
                in_progress=s.counts["in_progress"],
                not_started=s.counts["not_started"],
                late=s.counts["late"],
                share_done=round(s.share_done, 4),
                attempts_mean=s.attempts_mean,
            )
            for s in result.lessons
        ],
        lesson=result.lesson,
        items=[item_out(item) for item in result.items],
        hardest=[item_out(item, details=False) for item in result.hardest],
    )
