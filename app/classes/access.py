"""Who may do what with a class, shared by the API and the pages.

Wrong role: 403. A class that is not the caller's, or a student not in it now: 404, the
same answer as for an id that does not exist, so ids cannot be probed.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, HTTPException, Path, Request, status
from sqlalchemy.ext.asyncio import AsyncSession

from app.auth.dependencies import OptionalUser, current_user
from app.classes import service
from app.db import SessionDep
from app.errors import not_found
from app.i18n import N_
from app.ids import DbId, check_path_and_query
from app.models import Classroom, Role, User
from app.web.login import LoginRequired, here

ClassId = DbId
StudentId = DbId
LessonSlug = Annotated[str, Path(max_length=64)]

TEACHERS_ONLY = N_("Only teachers can manage classes.")
STUDENTS_ONLY = N_("Only students can join classes.")


def require_teacher(user: User) -> None:
    if user.role != Role.TEACHER:
        raise HTTPException(status.HTTP_403_FORBIDDEN, TEACHERS_ONLY)


def require_student(user: User) -> None:
    if user.role != Role.STUDENT:
        raise HTTPException(status.HTTP_403_FORBIDDEN, STUDENTS_ONLY)


async def current_student(user: Annotated[User, Depends(current_user)]) -> User:
    require_student(user)
    return user


Student = Annotated[User, Depends(current_student)]


async def own_class(*, session: AsyncSession, teacher: User, class_id: int) -> Classroom:
    classroom = await service.get_teacher_class(
        session=session, teacher_id=teacher.id, class_id=class_id
    )
    if classroom is None:
        raise not_found("Class")
    return classroom


async def teacher_class(
    request: Request, session: SessionDep, user: OptionalUser, class_id: ClassId
) -> Classroom:
    """The class of a class page (`/classes/{class_id}...`) if the caller runs it;
    LoginRequired when nobody is signed in, 403 for a student, 404 for a class that is not
    theirs; before all that, a 422 for anything out of range in the path or the query."""
    check_path_and_query(request)
    if user is None:
        raise LoginRequired(here(request))
    require_teacher(user)
    return await own_class(session=session, teacher=user, class_id=class_id)


# A class page declares `classroom: TeacherClass` and gets the class it may see; one that
# needs no more of it than the check: `dependencies=[TEACHER_OF_THE_CLASS]` in its route.
TeacherClass = Annotated[Classroom, Depends(teacher_class)]
TEACHER_OF_THE_CLASS = Depends(teacher_class)


async def class_student(*, session: AsyncSession, class_id: int, student_id: int) -> User:
    student = await service.member(session=session, class_id=class_id, student_id=student_id)
    if student is None:
        raise not_found("Student")
    return student
