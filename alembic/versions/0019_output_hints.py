"""output_hints: a teacher's hint on a wrong-output cluster of an exercise, for one class

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-05 12:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "output_hints",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("class_id", sa.Integer(), nullable=False),
        sa.Column("exercise_id", sa.String(length=80), nullable=False),
        sa.Column("cluster", sa.String(length=64), nullable=False),
        sa.Column("sample_output", sa.Text(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("teacher_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["class_id"], ["classes.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["exercise_id"], ["exercises.id"]),
        sa.ForeignKeyConstraint(["teacher_id"], ["users.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint(
            "class_id", "exercise_id", "cluster", name=op.f("uq_output_hints_class_id")
        ),
    )
    op.create_index(op.f("ix_output_hints_exercise_id"), "output_hints", ["exercise_id"])
    op.create_index(op.f("ix_output_hints_teacher_id"), "output_hints", ["teacher_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_output_hints_teacher_id"), table_name="output_hints")
    op.drop_index(op.f("ix_output_hints_exercise_id"), table_name="output_hints")
    op.drop_table("output_hints")
