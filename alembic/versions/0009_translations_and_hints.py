"""translations of tracks, questions and exercises; exercise hints and who opened them

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-05 10:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Server defaults fill the rows already there; the next content sync writes real values.
    # Plain ALTER TABLE (no batch): a batch would rebuild the tables on SQLite, which fails
    # while attempts and submissions refer to them.
    for table in ("tracks", "questions", "exercises"):
        op.add_column(
            table, sa.Column("translations", sa.JSON(), nullable=False, server_default="{}")
        )
    op.add_column("exercises", sa.Column("hints", sa.JSON(), nullable=False, server_default="[]"))
    op.add_column(
        "exercises", sa.Column("hints_after", sa.Integer(), nullable=False, server_default="2")
    )
    op.create_table(
        "hint_openings",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("exercise_id", sa.String(length=80), nullable=False),
        sa.Column("hint_index", sa.Integer(), nullable=False),
        sa.Column("opened_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["exercise_id"], ["exercises.id"], name=op.f("fk_hint_openings_exercise_id_exercises")
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_hint_openings_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_hint_openings")),
        sa.UniqueConstraint(
            "user_id", "exercise_id", "hint_index", name=op.f("uq_hint_openings_user_id")
        ),
    )
    op.create_index(
        op.f("ix_hint_openings_exercise_id"), "hint_openings", ["exercise_id"], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_hint_openings_exercise_id"), table_name="hint_openings")
    op.drop_table("hint_openings")
    # ALTER TABLE ... DROP COLUMN (SQLite 3.35 and later), for the same reason.
    op.drop_column("exercises", "hints_after")
    op.drop_column("exercises", "hints")
    for table in ("exercises", "questions", "tracks"):
        op.drop_column(table, "translations")
