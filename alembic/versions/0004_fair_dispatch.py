"""fair dispatch: submissions wait behind the student's own earlier ones

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01 10:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("dispatched_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.create_index("ix_submissions_user_status", ["user_id", "status"], unique=False)
    # Unfinished rows were all handed to the graders already (the queue had no waiting).
    op.execute(
        "UPDATE submissions SET dispatched_at = created_at WHERE status IN ('queued', 'running')"
    )


def downgrade() -> None:
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.drop_index("ix_submissions_user_status")
        batch_op.drop_column("dispatched_at")
