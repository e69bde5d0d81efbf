"""due-date extensions per student and assignment; late policy per assignment

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-01 05:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ALTER TABLE (no batch): a batch would rebuild class_assignments on SQLite.
    op.add_column(
        "class_assignments",
        sa.Column("late_work", sa.Boolean(), nullable=False, server_default="1"),
    )
    op.add_column(
        "class_assignments",
        sa.Column("late_penalty_percent", sa.Integer(), nullable=False, server_default="0"),
    )
    op.create_table(
        "due_extensions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("assignment_id", sa.Integer(), nullable=False),
        sa.Column("student_id", sa.Integer(), nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["assignment_id"],
            ["class_assignments.id"],
            name=op.f("fk_due_extensions_assignment_id_class_assignments"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["student_id"],
            ["users.id"],
            name=op.f("fk_due_extensions_student_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_due_extensions")),
        sa.UniqueConstraint(
            "assignment_id", "student_id", name=op.f("uq_due_extensions_assignment_id")
        ),
    )
    op.create_index(
        op.f("ix_due_extensions_student_id"), "due_extensions", ["student_id"], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_due_extensions_student_id"), table_name="due_extensions")
    op.drop_table("due_extensions")
    with op.batch_alter_table("class_assignments", schema=None) as batch_op:
        batch_op.drop_column("late_penalty_percent")
        batch_op.drop_column("late_work")
