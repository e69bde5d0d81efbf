"""exercise variants: the visible example's setup and the hidden variants of an exercise

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 12:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Server defaults fill the rows already there; the next content sync writes real values.
    # Plain ALTER TABLE on both databases: a batch would rebuild `exercises` on SQLite, and
    # dropping the old table fails while submissions refer to it.
    op.add_column("exercises", sa.Column("setup", sa.Text(), nullable=False, server_default=""))
    op.add_column(
        "exercises", sa.Column("variants", sa.JSON(), nullable=False, server_default="[]")
    )


def downgrade() -> None:
    # ALTER TABLE ... DROP COLUMN (SQLite 3.35 and later), for the same reason.
    op.drop_column("exercises", "variants")
    op.drop_column("exercises", "setup")
