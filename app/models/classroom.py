"""Classes a teacher runs: the class, its members and the lessons assigned to it.

Membership rows are never deleted when a teacher removes a student: the row is marked
`removed_at`, and everything the student did (answers, submissions) stays theirs. Joining
again clears the mark.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    ColumnElement,
    ForeignKey,
    Index,
    String,
    UniqueConstraint,
    exists,
    or_,
    select,
)
from sqlalchemy.orm import Mapped, mapped_column

from app.models.base import Base, utcnow

STUDENT_NUMBER_MAX = 32


class Classroom(Base):
    __tablename__ = "classes"

    id: Mapped[int] = mapped_column(primary_key=True)
    teacher_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(100))
    # Short, unambiguous characters; regenerating it makes the old one stop working.
    join_code: Mapped[str] = mapped_column(String(16), unique=True)
    archived_at: Mapped[datetime | None] = mapped_column(default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    @property
    def archived(self) -> bool:
        return self.archived_at is not None

    @classmethod
    def taught_by(cls, teacher_id: int) -> ColumnElement[bool]:
        """Whether this teacher runs the class: its owner, or a co-teacher (an LMS course's
        other instructors). Every teacher's access to a class goes through this."""
        return or_(
            cls.teacher_id == teacher_id,
            exists(
                select(ClassTeacher.id).where(
                    ClassTeacher.class_id == cls.id, ClassTeacher.teacher_id == teacher_id
                )
            ),
        )


class ClassTeacher(Base):
    """A teacher who runs a class beside its owner, with the same rights over it (an LMS
    course has several instructors; the first to launch owns the class, the others join
    it here)."""

    __tablename__ = "class_teachers"
    __table_args__ = (
        UniqueConstraint("class_id", "teacher_id"),
        Index("ix_class_teachers_teacher", "teacher_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    class_id: Mapped[int] = mapped_column(ForeignKey("classes.id", ondelete="CASCADE"))
    teacher_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    added_at: Mapped[datetime] = mapped_column(default=utcnow)


class ClassMember(Base):
    __tablename__ = "class_members"
    __table_args__ = (
        UniqueConstraint("class_id", "student_id"),
        Index("ix_class_members_student", "student_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    class_id: Mapped[int] = mapped_column(ForeignKey("classes.id", ondelete="CASCADE"))
    student_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    joined_at: Mapped[datetime] = mapped_column(default=utcnow)
    removed_at: Mapped[datetime | None] = mapped_column(default=None)
    # The school's number for the student, set by the teacher: per membership, because it
    # belongs to the school the class is in (one student, two schools, two numbers), and a
    # teacher edits their own roster, never the student's account.
    student_number: Mapped[str | None] = mapped_column(String(STUDENT_NUMBER_MAX), default=None)


class ClassAssignment(Base):
    """A lesson the class is asked to do, with an optional due date and a late policy."""

    __tablename__ = "class_assignments"
    __table_args__ = (UniqueConstraint("class_id", "lesson_slug"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    class_id: Mapped[int] = mapped_column(ForeignKey("classes.id", ondelete="CASCADE"))
    lesson_slug: Mapped[str] = mapped_column(ForeignKey("lessons.slug"), index=True)
    due_at: Mapped[datetime | None] = mapped_column(default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # Late policy: whether work finished after the (student's) due date counts, and if so
    # how many points of 100 it loses (app/classes/due.py applies it).
    late_work: Mapped[bool] = mapped_column(default=True, server_default="1")
    late_penalty_percent: Mapped[int] = mapped_column(default=0, server_default="0")
