"""question tries; answers students asked to be shown (question_reveals)

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-08 12:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ALTER TABLE (no batch), as in 0009: a batch would rebuild the table on SQLite,
    # which fails while attempts refer to it. The next content sync writes real values.
    op.add_column("questions", sa.Column("tries", sa.Integer(), nullable=False, server_default="2"))
    op.create_table(
        "question_reveals",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("question_id", sa.String(length=80), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["question_id"],
            ["questions.id"],
            name=op.f("fk_question_reveals_question_id_questions"),
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_question_reveals_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_question_reveals")),
        sa.UniqueConstraint("user_id", "question_id", name=op.f("uq_question_reveals_user_id")),
    )
    op.create_index(
        op.f("ix_question_reveals_question_id"), "question_reveals", ["question_id"], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_question_reveals_question_id"), table_name="question_reveals")
    op.drop_table("question_reveals")
    # ALTER TABLE ... DROP COLUMN (SQLite 3.35 and later), for the same reason.
    op.drop_column("questions", "tries")
