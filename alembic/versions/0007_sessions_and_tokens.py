"""sessions and tokens: a session version and an active flag per user, browser sessions
kept server-side, named API tokens that expire, successful log-ins for throttling

Existing data: every token made before this revision is named "API token" and expires
90 days after the upgrade; cookies made before it carry no session key and are refused,
so everyone logs in once more.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-03 10:00:00.000000
"""

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

api_tokens = sa.table(
    "api_tokens",
    sa.column("name", sa.String),
    sa.column("expires_at", sa.DateTime(timezone=True)),
)


def upgrade() -> None:
    # Plain ALTER TABLE with literal defaults on both back ends: a batch would rebuild the
    # tables on SQLite, and dropping the old users table fails while others refer to it.
    op.add_column("users", sa.Column("active", sa.Boolean(), server_default="1", nullable=False))
    op.add_column(
        "users", sa.Column("session_version", sa.Integer(), server_default="0", nullable=False)
    )
    op.add_column(
        "api_tokens",
        sa.Column("name", sa.String(length=100), server_default="", nullable=False),
    )
    op.add_column("api_tokens", sa.Column("expires_at", sa.DateTime(timezone=True)))
    op.add_column("api_tokens", sa.Column("last_used_at", sa.DateTime(timezone=True)))
    op.execute(
        api_tokens.update().values(
            name="API token", expires_at=datetime.now(UTC) + timedelta(days=90)
        )
    )
    op.create_index(
        "ix_login_failures_client_at", "login_failures", ["client", "created_at"], unique=False
    )
    op.create_table(
        "login_sessions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("key_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_login_sessions_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_login_sessions")),
        sa.UniqueConstraint("key_hash", name=op.f("uq_login_sessions_key_hash")),
    )
    op.create_index(op.f("ix_login_sessions_user_id"), "login_sessions", ["user_id"], unique=False)
    op.create_table(
        "login_successes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("username", sa.String(length=64), nullable=False),
        sa.Column("client", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_login_successes")),
    )
    op.create_index("ix_login_successes_username_at", "login_successes", ["username", "created_at"])
    op.create_index("ix_login_successes_client_at", "login_successes", ["client", "created_at"])


def downgrade() -> None:
    # ALTER TABLE ... DROP COLUMN (SQLite 3.35 and later), for the same reason.
    op.drop_index("ix_login_successes_client_at", table_name="login_successes")
    op.drop_index("ix_login_successes_username_at", table_name="login_successes")
    op.drop_table("login_successes")
    op.drop_index(op.f("ix_login_sessions_user_id"), table_name="login_sessions")
    op.drop_table("login_sessions")
    op.drop_index("ix_login_failures_client_at", table_name="login_failures")
    op.drop_column("api_tokens", "last_used_at")
    op.drop_column("api_tokens", "expires_at")
    op.drop_column("api_tokens", "name")
    op.drop_column("users", "session_version")
    op.drop_column("users", "active")
