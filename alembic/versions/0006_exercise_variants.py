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
    with op.batch_alter_table("exercises", schema=None) as batch_op:
        batch_op.add_column(sa.Column("setup", sa.Text(), nullable=False, server_default=""))
        batch_op.add_column(
            sa.Column("variants", sa.JSON(), nullable=False, server_default=sa.text("'[]'"))
        )


def downgrade() -> None:
    with op.batch_alter_table("exercises", schema=None) as batch_op:
        batch_op.drop_column("variants")
        batch_op.drop_column("setup")
