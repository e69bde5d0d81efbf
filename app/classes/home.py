"""The classes part of the home page: a student's assignments with their due dates and
state, a teacher's active classes. The catalog page (app.lessons) shows it on top."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.classes import service
from app.classes.due import DONE_STATES, effective_due
from app.classes.reports.grid import STATE_LABELS, STATE_SYMBOLS, state_of, student_cells
from app.classes.service import StudentClass
from app.models import Role, User, utcnow


@dataclass
class HomeAssignment:
    lesson_slug: str
    title: str
    due_at: datetime | None  # the student's: their extension, else the assignment's
    state: str
    extended: bool = False

    @property
    def done(self) -> bool:
        return self.state in DONE_STATES


@dataclass
class HomeClass:
    id: int
    name: str
    teacher: str
    assignments: list[HomeAssignment] = field(default_factory=list)


async def student_home(*, session: AsyncSession, user: User) -> list[HomeClass]:
    classes: list[StudentClass] = await service.student_classes(session=session, student_id=user.id)
    cells = await student_cells(
        session=session,
        student_id=user.id,
        slugs=[a.lesson_slug for c in classes for a in c.assignments],
    )
    now = utcnow()
    far = datetime.max.replace(tzinfo=now.tzinfo)
    return [
        HomeClass(
            c.id,
            c.name,
            c.teacher,
            sorted(
                (
                    HomeAssignment(
                        a.lesson_slug,
                        a.title,
                        due,
                        state_of(cells[a.lesson_slug], due, now),
                        extended=a.extended_to is not None,
                    )
                    for a in c.assignments
                    for due in [effective_due(a.due_at, a.extended_to)]
                ),
                key=lambda a: (a.done, a.due_at or far),
            ),
        )
        for c in classes
    ]


async def home_section(*, session: AsyncSession, user: User | None) -> dict[str, Any] | None:
    if user is None:
        return None
    home: dict[str, Any] = {"now": utcnow(), "labels": STATE_LABELS, "symbols": STATE_SYMBOLS}
    if user.role == Role.TEACHER:
        teaching = await service.teacher_classes(session=session, teacher_id=user.id)
        return home | {"teaching": [s for s in teaching if not s.classroom.archived]}
    return home | {"classes": await student_home(session=session, user=user)}
