"""submission storage: a per-user count of stored bytes, and a mark on older attempts

Existing data: the runs that finished submissions hold are dropped from submission_runs
(the rows stay, without output), and each user's stored bytes are counted once.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02 10:00:00.000000
"""

from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OUTPUT_FIELDS = ("stdout", "stderr", "diff")
BATCH = 100  # rows read at a time: a finished submission's runs may hold a few hundred KB

submissions = sa.table(
    "submissions",
    sa.column("id", sa.Integer),
    sa.column("user_id", sa.Integer),
    sa.column("code", sa.Text),
    sa.column("runs", sa.JSON),
)
submission_runs = sa.table(
    "submission_runs",
    sa.column("id", sa.Integer),
    sa.column("submission_id", sa.Integer),
    sa.column("device", sa.String),
    sa.column("run", sa.JSON),
)
users = sa.table("users", sa.column("id", sa.Integer), sa.column("stored_bytes", sa.BigInteger))


def upgrade() -> None:
    # Plain ALTER TABLE on both back ends, with literal defaults: on SQLite a batch (or a
    # default that is an SQL expression) would copy the table, and dropping the old
    # submissions table would cascade to submission_runs.
    op.add_column(
        "users", sa.Column("stored_bytes", sa.BigInteger(), server_default="0", nullable=False)
    )
    op.add_column(
        "submissions",
        sa.Column("output_compacted", sa.Boolean(), server_default="0", nullable=False),
    )
    _count_and_drop_copies(op.get_bind())


def downgrade() -> None:
    # ALTER TABLE ... DROP COLUMN (SQLite 3.35 and later), for the same reason.
    op.drop_column("submissions", "output_compacted")
    op.drop_column("users", "stored_bytes")


def _output_bytes(run: Any) -> int:
    if not isinstance(run, dict):
        return 0
    return sum(len(str(run.get(field) or "").encode()) for field in OUTPUT_FIELDS)


def _batches(connection: sa.Connection, query: sa.Select[Any], key: Any) -> Iterator[list[Any]]:
    """The rows of `query` in pages of BATCH by `key` (the first column), in order."""
    last = 0
    while True:
        rows = connection.execute(query.where(key > last).order_by(key).limit(BATCH)).all()
        if not rows:
            return
        yield list(rows)
        last = rows[-1][0]


def _count_and_drop_copies(connection: sa.Connection) -> None:
    stored: Counter[int] = Counter()
    # Submissions that hold their runs (finishing copies every device's run there).
    holding: set[int] = set()
    s = submissions.c
    query = sa.select(s.id, s.user_id, s.code, s.runs)
    for rows in _batches(connection, query, s.id):
        for submission_id, user_id, code, runs in rows:
            runs = [run for run in runs or [] if isinstance(run, dict)]
            stored[user_id] += len((code or "").encode()) + sum(map(_output_bytes, runs))
            if runs:
                holding.add(submission_id)
    r = submission_runs.c
    query = sa.select(r.id, r.submission_id, r.run, s.user_id).join(
        submissions, s.id == r.submission_id
    )
    for rows in _batches(connection, query, r.id):
        emptied = []
        for run_id, submission_id, run, user_id in rows:
            if not _output_bytes(run):
                continue
            if submission_id in holding:
                emptied.append({"row": run_id, "stub": {**run, **dict.fromkeys(OUTPUT_FIELDS, "")}})
            else:
                stored[user_id] += _output_bytes(run)
        if emptied:
            connection.execute(
                submission_runs.update()
                .where(r.id == sa.bindparam("row"))
                .values(run=sa.bindparam("stub")),
                emptied,
            )
    if stored:
        connection.execute(
            users.update()
            .where(users.c.id == sa.bindparam("user"))
            .values(stored_bytes=sa.bindparam("bytes")),
            [{"user": user_id, "bytes": count} for user_id, count in stored.items()],
        )
