"""The carrier's port-status pushes taken, once each (issue 27, finding 9).

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-27 09:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes  # autogenerate renders column types by this path
from alembic import op

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

String = sqlmodel.sql.sqltypes.AutoString
When = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    op.create_table(
        "port_push",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("digest", String(length=64), nullable=False),
        sa.Column("enrollment_id", String(length=24), nullable=False),
        sa.Column("signalled", sa.Boolean(), nullable=False),
        sa.Column("received_at", When(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("digest"),
    )
    with op.batch_alter_table("port_push") as batch:
        batch.create_index(batch.f("ix_port_push_enrollment_id"), ["enrollment_id"], unique=False)
        batch.create_index(batch.f("ix_port_push_received_at"), ["received_at"], unique=False)


def downgrade() -> None:
    op.drop_table("port_push")
