"""LTI Advantage: the platforms' line items, who launched through them, the outbox of
scores for them, and a course's roster (NRPS) URL

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-05 12:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "lti_line_items",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("platform_id", sa.Integer(), nullable=False),
        sa.Column("url", sa.String(length=1000), nullable=False),
        sa.Column("lesson_slug", sa.String(length=80), nullable=False),
        sa.Column("exercise_id", sa.String(length=80), nullable=True),
        sa.Column("created_at", WHEN, nullable=False),
        sa.ForeignKeyConstraint(
            ["platform_id"],
            ["lti_platforms.id"],
            name=op.f("fk_lti_line_items_platform_id_lti_platforms"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lti_line_items")),
        sa.UniqueConstraint("platform_id", "url", name=op.f("uq_lti_line_items_platform_id")),
    )
    op.create_index(
        op.f("ix_lti_line_items_lesson_slug"), "lti_line_items", ["lesson_slug"], unique=False
    )
    op.create_table(
        "lti_line_item_learners",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("line_item_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("subject", sa.String(length=255), nullable=False),
        sa.ForeignKeyConstraint(
            ["line_item_id"],
            ["lti_line_items.id"],
            name=op.f("fk_lti_line_item_learners_line_item_id_lti_line_items"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_lti_line_item_learners_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lti_line_item_learners")),
        sa.UniqueConstraint(
            "line_item_id", "user_id", name=op.f("uq_lti_line_item_learners_line_item_id")
        ),
    )
    op.create_index(
        op.f("ix_lti_line_item_learners_user_id"),
        "lti_line_item_learners",
        ["user_id"],
        unique=False,
    )
    op.create_table(
        "lti_scores",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("line_item_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("subject", sa.String(length=255), nullable=False),
        sa.Column("score_given", sa.Float(), nullable=False),
        sa.Column("activity_progress", sa.String(length=20), nullable=False),
        sa.Column("grading_progress", sa.String(length=20), nullable=False),
        sa.Column("timestamp", WHEN, nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", WHEN, nullable=False),
        sa.Column("claimed_until", WHEN, nullable=True),
        sa.Column("sent_at", WHEN, nullable=True),
        sa.Column("failed_at", WHEN, nullable=True),
        sa.Column("last_error", sa.String(length=300), nullable=True),
        sa.ForeignKeyConstraint(
            ["line_item_id"],
            ["lti_line_items.id"],
            name=op.f("fk_lti_scores_line_item_id_lti_line_items"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_lti_scores_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lti_scores")),
    )
    op.create_index(
        op.f("ix_lti_scores_line_item_id"), "lti_scores", ["line_item_id"], unique=False
    )
    op.create_index(op.f("ix_lti_scores_user_id"), "lti_scores", ["user_id"], unique=False)
    op.create_index(op.f("ix_lti_scores_sent_at"), "lti_scores", ["sent_at"], unique=False)
    with op.batch_alter_table("lti_contexts", schema=None) as batch_op:
        batch_op.add_column(sa.Column("platform_id", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("memberships_url", sa.String(length=1000), nullable=True))
        batch_op.add_column(sa.Column("roster_synced_at", WHEN, nullable=True))
        batch_op.create_foreign_key(
            batch_op.f("fk_lti_contexts_platform_id_lti_platforms"),
            "lti_platforms",
            ["platform_id"],
            ["id"],
            ondelete="SET NULL",
        )


def downgrade() -> None:
    with op.batch_alter_table("lti_contexts", schema=None) as batch_op:
        batch_op.drop_constraint(
            batch_op.f("fk_lti_contexts_platform_id_lti_platforms"), type_="foreignkey"
        )
        batch_op.drop_column("roster_synced_at")
        batch_op.drop_column("memberships_url")
        batch_op.drop_column("platform_id")
    op.drop_index(op.f("ix_lti_scores_sent_at"), table_name="lti_scores")
    op.drop_index(op.f("ix_lti_scores_user_id"), table_name="lti_scores")
    op.drop_index(op.f("ix_lti_scores_line_item_id"), table_name="lti_scores")
    op.drop_table("lti_scores")
    op.drop_index(op.f("ix_lti_line_item_learners_user_id"), table_name="lti_line_item_learners")
    op.drop_table("lti_line_item_learners")
    op.drop_index(op.f("ix_lti_line_items_lesson_slug"), table_name="lti_line_items")
    op.drop_table("lti_line_items")
