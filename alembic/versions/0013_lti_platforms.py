"""LTI 1.3: platforms, deployments, the tool's keys, logins in flight, linked accounts
and courses

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-01 05:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "lti_platforms",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("issuer", sa.String(length=255), nullable=False),
        sa.Column("client_id", sa.String(length=255), nullable=False),
        sa.Column("auth_url", sa.String(length=1000), nullable=False),
        sa.Column("token_url", sa.String(length=1000), nullable=False),
        sa.Column("jwks_url", sa.String(length=1000), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lti_platforms")),
        sa.UniqueConstraint("issuer", "client_id", name=op.f("uq_lti_platforms_issuer")),
    )
    op.create_table(
        "lti_deployments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("platform_id", sa.Integer(), nullable=False),
        sa.Column("deployment_id", sa.String(length=255), nullable=False),
        sa.ForeignKeyConstraint(
            ["platform_id"],
            ["lti_platforms.id"],
            name=op.f("fk_lti_deployments_platform_id_lti_platforms"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lti_deployments")),
        sa.UniqueConstraint(
            "platform_id", "deployment_id", name=op.f("uq_lti_deployments_platform_id")
        ),
    )
    op.create_table(
        "lti_tool_keys",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kid", sa.String(length=64), nullable=False),
        sa.Column("private_jwk", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("retired_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lti_tool_keys")),
        sa.UniqueConstraint("kid", name=op.f("uq_lti_tool_keys_kid")),
    )
    op.create_table(
        "lti_logins",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("state_hash", sa.String(length=64), nullable=False),
        sa.Column("nonce", sa.String(length=64), nullable=False),
        sa.Column("platform_id", sa.Integer(), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["platform_id"],
            ["lti_platforms.id"],
            name=op.f("fk_lti_logins_platform_id_lti_platforms"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lti_logins")),
        sa.UniqueConstraint("state_hash", name=op.f("uq_lti_logins_state_hash")),
    )
    op.create_index(op.f("ix_lti_logins_expires_at"), "lti_logins", ["expires_at"])
    op.create_table(
        "lti_accounts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("issuer", sa.String(length=255), nullable=False),
        sa.Column("subject", sa.String(length=255), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_lti_accounts_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lti_accounts")),
        sa.UniqueConstraint("issuer", "subject", name=op.f("uq_lti_accounts_issuer")),
    )
    op.create_index(op.f("ix_lti_accounts_user_id"), "lti_accounts", ["user_id"])
    op.create_table(
        "lti_contexts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("issuer", sa.String(length=255), nullable=False),
        sa.Column("context_id", sa.String(length=255), nullable=False),
        sa.Column("class_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["class_id"],
            ["classes.id"],
            name=op.f("fk_lti_contexts_class_id_classes"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lti_contexts")),
        sa.UniqueConstraint("issuer", "context_id", name=op.f("uq_lti_contexts_issuer")),
    )
    op.create_index(op.f("ix_lti_contexts_class_id"), "lti_contexts", ["class_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_lti_contexts_class_id"), table_name="lti_contexts")
    op.drop_table("lti_contexts")
    op.drop_index(op.f("ix_lti_accounts_user_id"), table_name="lti_accounts")
    op.drop_table("lti_accounts")
    op.drop_index(op.f("ix_lti_logins_expires_at"), table_name="lti_logins")
    op.drop_table("lti_logins")
    op.drop_table("lti_tool_keys")
    op.drop_table("lti_deployments")
    op.drop_table("lti_platforms")
