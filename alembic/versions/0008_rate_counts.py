"""rate counts: what the platform limits per subject (sign-ups per address, join-code
guesses, answers), counted in fixed windows so that the limits hold across processes

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-04 10:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "rate_counts",
        sa.Column("key", sa.String(length=128), nullable=False),
        sa.Column("window_start", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ends_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("hits", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("key", "window_start", name=op.f("pk_rate_counts")),
    )
    op.create_index(op.f("ix_rate_counts_ends_at"), "rate_counts", ["ends_at"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_rate_counts_ends_at"), table_name="rate_counts")
    op.drop_table("rate_counts")
