"""display names, student numbers and set-password links (roster import)

Users gain a display name (any script; existing accounts get their username) and an
e-mail (only accounts a roster import made by e-mail have one); class memberships a student
number; password_links holds the one-time set-password links of imported accounts.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-05 12:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ALTER TABLE (no batch): a batch would rebuild users on SQLite.
    op.add_column(
        "users",
        sa.Column("display_name", sa.String(length=80), nullable=False, server_default=""),
    )
    op.execute("UPDATE users SET display_name = username")
    op.add_column("users", sa.Column("email", sa.String(length=254), nullable=True))
    op.create_index(op.f("ix_users_email"), "users", ["email"], unique=True)
    op.add_column("class_members", sa.Column("student_number", sa.String(length=32), nullable=True))
    op.create_table(
        "password_links",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_password_links_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_password_links")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_password_links_token_hash")),
    )
    op.create_index(op.f("ix_password_links_user_id"), "password_links", ["user_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_password_links_user_id"), table_name="password_links")
    op.drop_table("password_links")
    op.drop_index(op.f("ix_users_email"), table_name="users")
    # Plain DROP COLUMN (SQLite 3.35+), as in upgrade: a batch would rebuild users, and on
    # SQLite dropping the old table cascades every submission of every user away.
    op.drop_column("class_members", "student_number")
    op.drop_column("users", "email")
    op.drop_column("users", "display_name")
