"""Classes: creating and running them, joining, the roster and assignments. Never commits.

Access rules live here as lookups that return None for what the caller may not see, so the
API and the pages answer 404 alike whether the class is someone else's or does not exist.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from sqlalchemy import ColumnElement, Select, and_, delete, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.auth import password_links
from app.auth.schemas import fold_for_search
from app.i18n import N_, current_language
from app.lessons.catalog import is_live, live, live_lesson
from app.models import (
    ClassAssignment,
    ClassMember,
    Classroom,
    DueExtension,
    Exercise,
    Lesson,
    Question,
    User,
    utcnow,
)
from app.models.classroom import STUDENT_NUMBER_MAX as STUDENT_NUMBER_MAX
from app.models.content import translated

# No 0/O, 1/I/L: a code read aloud or off a projector cannot be mistyped into another.
JOIN_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
JOIN_CODE_LENGTH = 8
JOIN_CODE_MAX = 16  # the column's length
# How long a removal or a new join code can be undone from the flash message's "Undo".
UNDO_WINDOW = timedelta(minutes=10)
UNKNOWN_CODE = N_("No class has that join code.")
ARCHIVED_CLASS = N_("This class is archived and no longer takes new students; ask your teacher.")


class JoinRefused(Exception):
    def __init__(self, status_code: int, message: str) -> None:
        self.status_code = status_code
        self.message = message
        super().__init__(message)


def normalize_code(text: str) -> str:
    """What a student typed, as stored: upper case, without spaces or dashes."""
    return "".join(ch for ch in text.upper() if ch not in " -\t")


def new_join_code() -> str:
    return "".join(secrets.choice(JOIN_ALPHABET) for _ in range(JOIN_CODE_LENGTH))


async def _unused_code(session: AsyncSession) -> str:
    while True:
        code = new_join_code()
        if await session.scalar(select(Classroom.id).where(Classroom.join_code == code)) is None:
            return code


async def _flush_with_fresh_code(session: AsyncSession, classroom: Classroom) -> None:
    """Flush, choosing another code if a concurrent request took this one meanwhile."""
    for _ in range(5):
        classroom.join_code = await _unused_code(session)
        try:
            async with session.begin_nested():
                await session.flush()
            return
        except IntegrityError:
            if classroom not in session:
                session.add(classroom)
    raise RuntimeError("could not find an unused join code")


async def create_class(*, session: AsyncSession, teacher_id: int, name: str) -> Classroom:
    classroom = Classroom(teacher_id=teacher_id, name=name, join_code="")
    session.add(classroom)
    await _flush_with_fresh_code(session, classroom)
    return classroom


async def regenerate_code(*, session: AsyncSession, classroom: Classroom) -> str:
    """A new join code; the old one stops working at once. Returns the old one (for undo)."""
    old = classroom.join_code
    await _flush_with_fresh_code(session, classroom)
    return old


async def restore_code(*, session: AsyncSession, classroom: Classroom, code: str) -> bool:
    """Undo a new join code: `code` (the class's previous one) works again and the new one
    stops; False if another class has taken `code` since."""
    taken = await session.scalar(
        select(Classroom.id).where(Classroom.join_code == code, Classroom.id != classroom.id)
    )
    if taken is not None or len(code) > JOIN_CODE_MAX:
        return False
    classroom.join_code = code
    try:
        async with session.begin_nested():
            await session.flush()
    except IntegrityError:
        return False
    return True


async def rename(*, session: AsyncSession, classroom: Classroom, name: str) -> None:
    classroom.name = name
    await session.flush()


async def set_archived(*, session: AsyncSession, classroom: Classroom, archived: bool) -> None:
    if archived and classroom.archived_at is None:
        classroom.archived_at = utcnow()
    elif not archived:
        classroom.archived_at = None
    await session.flush()


async def get_teacher_class(
    *, session: AsyncSession, teacher_id: int, class_id: int
) -> Classroom | None:
    """The class if this teacher runs it (owns it or co-teaches it); None for another
    teacher's class or no class."""
    return await session.scalar(
        select(Classroom).where(Classroom.id == class_id, Classroom.taught_by(teacher_id))
    )


def active_members(class_id: int) -> Select[int]:
    """The ids of the students now in the class, as a subquery to filter others by."""
    return select(ClassMember.student_id).where(
        ClassMember.class_id == class_id, ClassMember.removed_at.is_(None)
    )


@dataclass
class ClassSummary:
    classroom: Classroom
    students: int


async def teacher_classes(*, session: AsyncSession, teacher_id: int) -> list[ClassSummary]:
    counts = (
        select(ClassMember.class_id, func.count().label("n"))
        .where(ClassMember.removed_at.is_(None))
        .group_by(ClassMember.class_id)
        .subquery()
    )
    rows = await session.execute(
        select(Classroom, func.coalesce(counts.c.n, 0))
        .outerjoin(counts, counts.c.class_id == Classroom.id)
        .where(Classroom.taught_by(teacher_id))
        .order_by(Classroom.archived_at.is_not(None), Classroom.created_at.desc(), Classroom.id)
    )
    return [ClassSummary(classroom, int(n)) for classroom, n in rows]


async def student_count(*, session: AsyncSession, class_id: int) -> int:
    return int(
        await session.scalar(select(func.count()).select_from(active_members(class_id).subquery()))
        or 0
    )


@dataclass
class RosterRow:
    id: int
    username: str
    joined_at: datetime
    display_name: str = ""
    student_number: str | None = None
    # An account a roster import made whose student has not chosen a password yet.
    pending: bool = False


class Person(Protocol):
    username: str
    display_name: str
    student_number: str | None


def person_matches(needle: str, person: Person) -> bool:
    """Whether a student is found by `needle` (already folded by fold_for_search): part of
    their display name, username or student number, accents and Turkish i's folded."""
    return any(
        needle in fold_for_search(text)
        for text in (person.display_name, person.username, person.student_number or "")
    )


def by_name(person: Person) -> tuple[str, str]:
    """The order of students everywhere a class lists them: by display name, accents and
    case folded ("Çelik" beside "Celik", before "Demir"), then by username."""
    return fold_for_search(person.display_name), person.username


async def roster(*, session: AsyncSession, class_id: int, search: str = "") -> list[RosterRow]:
    """The students in the class now, by name (by_name); `search` keeps those it finds
    (person_matches)."""
    rows = await session.execute(
        select(
            User.id,
            User.username,
            ClassMember.joined_at,
            User.display_name,
            ClassMember.student_number,
            User.password_hash == password_links.NO_PASSWORD,
        )
        .join(ClassMember, ClassMember.student_id == User.id)
        .where(ClassMember.class_id == class_id, ClassMember.removed_at.is_(None))
    )
    found = sorted((RosterRow(*row) for row in rows), key=by_name)
    needle = fold_for_search(search)
    return [row for row in found if person_matches(needle, row)] if needle else found


def _in_class_now(class_id: int, student_id: int) -> ColumnElement[bool]:
    """The condition on ClassMember: the student is in the class now (joined, not removed)."""
    return and_(
        ClassMember.class_id == class_id,
        ClassMember.student_id == student_id,
        ClassMember.removed_at.is_(None),
    )


async def _membership(
    *, session: AsyncSession, class_id: int, student_id: int
) -> ClassMember | None:
    """The student's membership of the class while they are in it; None otherwise."""
    return await session.scalar(select(ClassMember).where(_in_class_now(class_id, student_id)))


async def member(*, session: AsyncSession, class_id: int, student_id: int) -> User | None:
    """The student if they are in the class now; None otherwise (removed, never joined)."""
    return await session.scalar(
        select(User)
        .join(ClassMember, ClassMember.student_id == User.id)
        .where(_in_class_now(class_id, student_id))
    )


async def remove_student(*, session: AsyncSession, class_id: int, student_id: int) -> bool:
    """End the membership; the student's answers and submissions stay theirs."""
    row = await _membership(session=session, class_id=class_id, student_id=student_id)
    if row is None:
        return False
    row.removed_at = utcnow()
    await session.flush()
    return True


async def restore_student(
    *, session: AsyncSession, class_id: int, student_id: int, now: datetime | None = None
) -> bool:
    """Undo a removal made within UNDO_WINDOW: the membership as it was (joined date and
    student number kept). False if there is no such recent removal."""
    now = now or utcnow()
    row = await session.scalar(
        select(ClassMember).where(
            ClassMember.class_id == class_id,
            ClassMember.student_id == student_id,
            ClassMember.removed_at.is_not(None),
            ClassMember.removed_at >= now - UNDO_WINDOW,
        )
    )
    if row is None:
        return False
    row.removed_at = None
    await session.flush()
    return True


async def add_member(*, session: AsyncSession, class_id: int, student_id: int) -> None:
    """The teacher puts a student in the class (a roster import): a new membership, or a
    removed one back; nothing changes for a student already in it."""
    row = await session.scalar(
        select(ClassMember).where(
            ClassMember.class_id == class_id, ClassMember.student_id == student_id
        )
    )
    if row is None:
        session.add(ClassMember(class_id=class_id, student_id=student_id))
    elif row.removed_at is not None:
        row.removed_at = None
        row.joined_at = utcnow()
    await session.flush()


async def student_number(*, session: AsyncSession, class_id: int, student_id: int) -> str | None:
    return await session.scalar(
        select(ClassMember.student_number).where(
            ClassMember.class_id == class_id, ClassMember.student_id == student_id
        )
    )


async def set_student_number(
    *, session: AsyncSession, class_id: int, student_id: int, number: str | None
) -> bool:
    """The school's number for a student in the class (None clears it); False if the
    student is not in the class."""
    row = await _membership(session=session, class_id=class_id, student_id=student_id)
    if row is None:
        return False
    row.student_number = number
    await session.flush()
    return True


async def class_for_code(*, session: AsyncSession, code: str) -> Classroom | None:
    code = normalize_code(code)
    if not code or len(code) > 16:
        return None
    return await session.scalar(select(Classroom).where(Classroom.join_code == code))


async def join(*, session: AsyncSession, student_id: int, code: str) -> Classroom:
    """Join by code. Joining a class one is in changes nothing; a removed student may
    join again. Raises JoinRefused (404 unknown or replaced code, 409 archived class)."""
    classroom = await class_for_code(session=session, code=code)
    if classroom is None:
        raise JoinRefused(404, UNKNOWN_CODE)
    existing = await session.scalar(
        select(ClassMember).where(
            ClassMember.class_id == classroom.id, ClassMember.student_id == student_id
        )
    )
    if existing is not None and existing.removed_at is None:
        return classroom
    if classroom.archived:
        raise JoinRefused(409, ARCHIVED_CLASS)
    if existing is not None:
        existing.removed_at = None
        existing.joined_at = utcnow()
        await session.flush()
        return classroom
    try:
        async with session.begin_nested():
            session.add(ClassMember(class_id=classroom.id, student_id=student_id))
            await session.flush()
    except IntegrityError:
        pass  # a concurrent request joined the same student: the outcome is the same
    return classroom


@dataclass
class AssignmentRow:
    lesson_slug: str
    title: str
    due_at: datetime | None
    late_work: bool = True
    late_penalty_percent: int = 0
    # One student's extension (their classes, app/classes/home.py); None elsewhere.
    extended_to: datetime | None = None


PENALTY_RANGE = range(0, 101)


async def assignments(*, session: AsyncSession, class_id: int) -> list[AssignmentRow]:
    """The class's assigned lessons still in the catalog, in course order; titles in the
    request's language."""
    rows = await session.execute(
        select(
            Lesson.slug,
            Lesson.title,
            Lesson.translations,
            ClassAssignment.due_at,
            ClassAssignment.late_work,
            ClassAssignment.late_penalty_percent,
        )
        .join(ClassAssignment, ClassAssignment.lesson_slug == Lesson.slug)
        .where(ClassAssignment.class_id == class_id, is_live(Lesson))
        .order_by(Lesson.position)
    )
    language = current_language()
    return [
        AssignmentRow(slug, translated(words, language, "title", title), *rest)
        for slug, title, words, *rest in rows
    ]


async def live_items(
    *, session: AsyncSession, slugs: list[str]
) -> tuple[list[Question], list[Exercise]]:
    """The live questions and exercises of some lessons, each in position order."""
    questions = await session.scalars(live(Question).where(Question.lesson_slug.in_(slugs)))
    exercises = await session.scalars(live(Exercise).where(Exercise.lesson_slug.in_(slugs)))
    return list(questions), list(exercises)


async def set_assignment(
    *,
    session: AsyncSession,
    class_id: int,
    lesson_slug: str,
    due_at: datetime | None,
    late_work: bool | None = None,
    late_penalty_percent: int | None = None,
) -> AssignmentRow | None:
    """Assign a lesson (or change its due date, and its late policy where given: None
    keeps it). None if there is no such lesson."""
    lesson = await live_lesson(session=session, slug=lesson_slug)
    if lesson is None:
        return None
    row = await session.scalar(
        select(ClassAssignment).where(
            ClassAssignment.class_id == class_id, ClassAssignment.lesson_slug == lesson_slug
        )
    )
    if row is None:
        try:
            async with session.begin_nested():
                session.add(
                    ClassAssignment(class_id=class_id, lesson_slug=lesson_slug, due_at=due_at)
                )
                await session.flush()
        except IntegrityError:  # assigned concurrently: set the date on that row
            row = await session.scalar(
                select(ClassAssignment).where(
                    ClassAssignment.class_id == class_id,
                    ClassAssignment.lesson_slug == lesson_slug,
                )
            )
    if row is None:  # inserted just now
        row = await _assignment(session=session, class_id=class_id, lesson_slug=lesson_slug)
    assert row is not None
    row.due_at = due_at
    if late_work is not None:
        row.late_work = late_work
    if late_penalty_percent is not None:
        row.late_penalty_percent = late_penalty_percent
    await session.flush()
    return AssignmentRow(lesson.slug, lesson.title, due_at, row.late_work, row.late_penalty_percent)


async def _assignment(
    *, session: AsyncSession, class_id: int, lesson_slug: str
) -> ClassAssignment | None:
    return await session.scalar(
        select(ClassAssignment).where(
            ClassAssignment.class_id == class_id, ClassAssignment.lesson_slug == lesson_slug
        )
    )


# --- extensions: a later due date for one student on one assignment --------------------


async def class_extensions(
    *, session: AsyncSession, class_id: int, student_id: int | None = None
) -> dict[tuple[int, str], datetime]:
    """(student id, lesson slug) -> the student's extended due date, for a class (or one
    of its students)."""
    query = (
        select(DueExtension.student_id, ClassAssignment.lesson_slug, DueExtension.due_at)
        .join(ClassAssignment, ClassAssignment.id == DueExtension.assignment_id)
        .where(ClassAssignment.class_id == class_id)
    )
    if student_id is not None:
        query = query.where(DueExtension.student_id == student_id)
    return {(student, slug): at for student, slug, at in await session.execute(query)}


def _extension_of(assignment_id: int, student_id: int) -> Select[DueExtension]:
    return select(DueExtension).where(
        DueExtension.assignment_id == assignment_id, DueExtension.student_id == student_id
    )


async def set_extension(
    *, session: AsyncSession, class_id: int, lesson_slug: str, student_id: int, due_at: datetime
) -> bool:
    """Give a student of the class a due date of their own on an assignment (or move it).
    False if the lesson is not assigned to the class. The caller checks membership."""
    assignment = await _assignment(session=session, class_id=class_id, lesson_slug=lesson_slug)
    if assignment is None:
        return False
    row = await session.scalar(_extension_of(assignment.id, student_id))
    if row is None:
        try:
            async with session.begin_nested():
                session.add(
                    DueExtension(assignment_id=assignment.id, student_id=student_id, due_at=due_at)
                )
                await session.flush()
            return True
        except IntegrityError:  # set concurrently: move that one
            row = await session.scalar(_extension_of(assignment.id, student_id))
    assert row is not None
    row.due_at = due_at
    await session.flush()
    return True


async def remove_extension(
    *, session: AsyncSession, class_id: int, lesson_slug: str, student_id: int
) -> bool:
    """The student is back on the assignment's due date. False if they had no extension."""
    assignment = await _assignment(session=session, class_id=class_id, lesson_slug=lesson_slug)
    if assignment is None:
        return False
    row = await session.scalar(_extension_of(assignment.id, student_id))
    if row is None:
        return False
    await session.delete(row)
    await session.flush()
    return True


async def remove_assignment(*, session: AsyncSession, class_id: int, lesson_slug: str) -> bool:
    row = await session.scalar(
        select(ClassAssignment).where(
            ClassAssignment.class_id == class_id, ClassAssignment.lesson_slug == lesson_slug
        )
    )
    if row is None:
        return False
    # The database cascades too; deleting here keeps SQLite without foreign keys tidy.
    await session.execute(delete(DueExtension).where(DueExtension.assignment_id == row.id))
    await session.delete(row)
    await session.flush()
    return True


@dataclass
class StudentClass:
    id: int
    name: str
    teacher: str
    assignments: list[AssignmentRow]


async def student_classes(*, session: AsyncSession, student_id: int) -> list[StudentClass]:
    """The classes a student is in now (archived ones left out), with their assignments:
    two queries whatever the number of classes."""
    teacher = User.__table__.alias("teacher")
    classes = await session.execute(
        select(Classroom.id, Classroom.name, teacher.c.username)
        .join(ClassMember, ClassMember.class_id == Classroom.id)
        .join(teacher, teacher.c.id == Classroom.teacher_id)
        .where(
            ClassMember.student_id == student_id,
            ClassMember.removed_at.is_(None),
            Classroom.archived_at.is_(None),
        )
        .order_by(Classroom.name, Classroom.id)
    )
    result = {i: StudentClass(i, name, teacher_name, []) for i, name, teacher_name in classes}
    if not result:
        return []
    rows = await session.execute(
        select(
            ClassAssignment.class_id,
            Lesson.slug,
            Lesson.title,
            ClassAssignment.due_at,
            ClassAssignment.late_work,
            ClassAssignment.late_penalty_percent,
            DueExtension.due_at,
        )
        .join(Lesson, Lesson.slug == ClassAssignment.lesson_slug)
        .outerjoin(
            DueExtension,
            (DueExtension.assignment_id == ClassAssignment.id)
            & (DueExtension.student_id == student_id),
        )
        .where(ClassAssignment.class_id.in_(list(result)), is_live(Lesson))
        .order_by(Lesson.position)
    )
    for class_id, slug, title, due_at, late_work, penalty, extended_to in rows:
        result[class_id].assignments.append(
            AssignmentRow(slug, title, due_at, late_work, penalty, extended_to)
        )
    return list(result.values())
