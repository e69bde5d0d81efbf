"""setup tokens: the one-time token, printed at start-up while no administrator exists,
with which the first signed-in account becomes the administrator (app/auth/setup.py)

Users' roles gain `admin`: the column is plain text already, so nothing else changes.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-08 10:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "setup_tokens",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_setup_tokens")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_setup_tokens_token_hash")),
    )


def downgrade() -> None:
    op.drop_table("setup_tokens")
