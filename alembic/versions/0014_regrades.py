"""regrades and regrade_results; submission_runs.regrade_id (a regrade's runs beside the
live ones: the live runs stay unique per device through a partial unique index)

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-09 12:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

LIVE = sa.text("regrade_id IS NULL")


def upgrade() -> None:
    op.create_table(
        "regrades",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("exercise_id", sa.String(length=80), nullable=False),
        sa.Column("requested_by", sa.Integer(), nullable=True),
        sa.Column("reason", sa.String(length=200), nullable=False),
        sa.Column("fingerprint", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ready_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("applied_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("applied_by", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["exercise_id"], ["exercises.id"], name=op.f("fk_regrades_exercise_id_exercises")
        ),
        sa.ForeignKeyConstraint(
            ["requested_by"],
            ["users.id"],
            name=op.f("fk_regrades_requested_by_users"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["applied_by"],
            ["users.id"],
            name=op.f("fk_regrades_applied_by_users"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_regrades")),
    )
    op.create_index("ix_regrades_exercise_status", "regrades", ["exercise_id", "status"])
    op.create_table(
        "regrade_results",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("regrade_id", sa.Integer(), nullable=False),
        sa.Column("submission_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("old_verdict", sa.String(length=32), nullable=True),
        sa.Column("new_status", sa.String(length=16), nullable=True),
        sa.Column("new_verdict", sa.String(length=32), nullable=True),
        sa.Column("new_detail", sa.Text(), nullable=True),
        sa.Column("runs", sa.JSON(), nullable=True),
        sa.Column("graded_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["regrade_id"],
            ["regrades.id"],
            name=op.f("fk_regrade_results_regrade_id_regrades"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["submission_id"],
            ["submissions.id"],
            name=op.f("fk_regrade_results_submission_id_submissions"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_regrade_results_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_regrade_results")),
        sa.UniqueConstraint(
            "regrade_id", "submission_id", name=op.f("uq_regrade_results_regrade_id")
        ),
    )
    op.create_index(
        "ix_regrade_results_regrade_graded", "regrade_results", ["regrade_id", "graded_at"]
    )
    op.create_index(op.f("ix_regrade_results_submission_id"), "regrade_results", ["submission_id"])
    # Nothing refers to submission_runs, so SQLite may rebuild it (batch).
    with op.batch_alter_table("submission_runs") as batch_op:
        batch_op.add_column(sa.Column("regrade_id", sa.Integer(), nullable=True))
        batch_op.create_foreign_key(
            batch_op.f("fk_submission_runs_regrade_id_regrades"),
            "regrades",
            ["regrade_id"],
            ["id"],
        )
        batch_op.drop_constraint("uq_submission_runs_submission_id", type_="unique")
        batch_op.create_index(
            "uq_submission_runs_live",
            ["submission_id", "device"],
            unique=True,
            sqlite_where=LIVE,
            postgresql_where=LIVE,
        )


def downgrade() -> None:
    op.execute("DELETE FROM submission_runs WHERE regrade_id IS NOT NULL")
    with op.batch_alter_table("submission_runs") as batch_op:
        batch_op.drop_index("uq_submission_runs_live")
        batch_op.create_unique_constraint(
            "uq_submission_runs_submission_id", ["submission_id", "device"]
        )
        batch_op.drop_constraint("fk_submission_runs_regrade_id_regrades", type_="foreignkey")
        batch_op.drop_column("regrade_id")
    op.drop_table("regrade_results")
    op.drop_table("regrades")
