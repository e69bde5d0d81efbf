"""classes: the class, its members (removal keeps the row) and its assigned lessons

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29 21:37:08.933360
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "classes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("teacher_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("join_code", sa.String(length=16), nullable=False),
        sa.Column("archived_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["teacher_id"],
            ["users.id"],
            name=op.f("fk_classes_teacher_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_classes")),
        sa.UniqueConstraint("join_code", name=op.f("uq_classes_join_code")),
    )
    with op.batch_alter_table("classes", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_classes_teacher_id"), ["teacher_id"], unique=False)

    op.create_table(
        "class_assignments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("class_id", sa.Integer(), nullable=False),
        sa.Column("lesson_slug", sa.String(length=64), nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["class_id"],
            ["classes.id"],
            name=op.f("fk_class_assignments_class_id_classes"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["lesson_slug"], ["lessons.slug"], name=op.f("fk_class_assignments_lesson_slug_lessons")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_class_assignments")),
        sa.UniqueConstraint("class_id", "lesson_slug", name=op.f("uq_class_assignments_class_id")),
    )
    with op.batch_alter_table("class_assignments", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_class_assignments_lesson_slug"), ["lesson_slug"], unique=False
        )

    op.create_table(
        "class_members",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("class_id", sa.Integer(), nullable=False),
        sa.Column("student_id", sa.Integer(), nullable=False),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("removed_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["class_id"],
            ["classes.id"],
            name=op.f("fk_class_members_class_id_classes"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["student_id"],
            ["users.id"],
            name=op.f("fk_class_members_student_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_class_members")),
        sa.UniqueConstraint("class_id", "student_id", name=op.f("uq_class_members_class_id")),
    )
    with op.batch_alter_table("class_members", schema=None) as batch_op:
        batch_op.create_index("ix_class_members_student", ["student_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("class_members", schema=None) as batch_op:
        batch_op.drop_index("ix_class_members_student")

    op.drop_table("class_members")
    with op.batch_alter_table("class_assignments", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_class_assignments_lesson_slug"))

    op.drop_table("class_assignments")
    with op.batch_alter_table("classes", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_classes_teacher_id"))

    op.drop_table("classes")
