"""submission_comments: a teacher's comment on one submission, shown to its student

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-01 05:20:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "submission_comments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("teacher_id", sa.Integer(), nullable=True),
        sa.Column("submission_id", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["teacher_id"], ["users.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["submission_id"], ["submissions.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        op.f("ix_submission_comments_teacher_id"), "submission_comments", ["teacher_id"]
    )
    op.create_index(
        op.f("ix_submission_comments_submission_id"), "submission_comments", ["submission_id"]
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_submission_comments_submission_id"), table_name="submission_comments")
    op.drop_index(op.f("ix_submission_comments_teacher_id"), table_name="submission_comments")
    op.drop_table("submission_comments")
