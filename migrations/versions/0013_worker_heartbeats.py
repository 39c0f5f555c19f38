"""Worker heartbeats: each worker process writes one row and keeps it fresh; /readyz wants a fresh one.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-26 09:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes  # autogenerate renders column types by this path
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "worker_heartbeat",
        sa.Column("identity", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("task_queue", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("seen_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("identity"),
    )
    with op.batch_alter_table("worker_heartbeat") as batch:
        batch.create_index(batch.f("ix_worker_heartbeat_task_queue"), ["task_queue"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("worker_heartbeat") as batch:
        batch.drop_index(batch.f("ix_worker_heartbeat_task_queue"))
    op.drop_table("worker_heartbeat")
