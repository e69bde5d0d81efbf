"""class_teachers: teachers who run a class beside its owner (an LMS course's instructors)

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-05 13:10:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "class_teachers",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("class_id", sa.Integer(), nullable=False),
        sa.Column("teacher_id", sa.Integer(), nullable=False),
        sa.Column("added_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["class_id"], ["classes.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["teacher_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("class_id", "teacher_id"),
    )
    op.create_index("ix_class_teachers_teacher", "class_teachers", ["teacher_id"])


def downgrade() -> None:
    op.drop_index("ix_class_teachers_teacher", table_name="class_teachers")
    op.drop_table("class_teachers")
