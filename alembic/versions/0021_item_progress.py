"""item_progress: each student's record per question and exercise, kept as work is recorded
(app/item_progress.py), filled here from the answers and graded submissions

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-05 15:20:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "item_progress",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("item_id", sa.String(length=80), nullable=False),
        sa.Column("lesson_slug", sa.String(length=64), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("first_ok_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("first_ok_n", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_item_progress_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("user_id", "kind", "item_id", name=op.f("pk_item_progress")),
    )
    op.create_index("ix_item_progress_user_lesson", "item_progress", ["user_id", "lesson_slug"])
    op.create_index(
        "ix_item_progress_item", "item_progress", ["kind", "item_id", "user_id", "first_ok_n"]
    )
    # The same statements the app rebuilds rows with: one meaning of the summary.
    from app.item_progress import rebuild_statements

    bind = op.get_bind()
    for statement in rebuild_statements():
        bind.execute(statement)


def downgrade() -> None:
    op.drop_index("ix_item_progress_item", table_name="item_progress")
    op.drop_index("ix_item_progress_user_lesson", table_name="item_progress")
    op.drop_table("item_progress")
