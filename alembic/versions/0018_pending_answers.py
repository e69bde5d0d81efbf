"""pending_answers: an answer given logged out without JavaScript, kept through log-in

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-05 12:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "pending_answers",
        sa.Column("token", sa.String(length=64), nullable=False),
        sa.Column("question_id", sa.String(length=80), nullable=False),
        sa.Column("answer", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["question_id"],
            ["questions.id"],
            name=op.f("fk_pending_answers_question_id_questions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("token", name=op.f("pk_pending_answers")),
    )
    op.create_index(
        op.f("ix_pending_answers_created_at"), "pending_answers", ["created_at"], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_pending_answers_created_at"), table_name="pending_answers")
    op.drop_table("pending_answers")
