"""The support console's sessions: one row per signed-in browser, the cookie stored only as its hash.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-24 09:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes  # autogenerate renders column types by this path
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "console_session",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("agent_id", sa.Integer(), nullable=False),
        sa.Column("vendor_id", sa.Integer(), nullable=False),
        sa.Column("ip_address", sqlmodel.sql.sqltypes.AutoString(length=45), nullable=True),
        sa.Column("started_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("last_seen_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["agent_id"], ["agent.id"]),
        sa.ForeignKeyConstraint(["vendor_id"], ["vendor.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token_hash"),
    )
    with op.batch_alter_table("console_session") as batch:
        batch.create_index(batch.f("ix_console_session_agent_id"), ["agent_id"], unique=False)
        batch.create_index(batch.f("ix_console_session_last_seen_at"), ["last_seen_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("console_session") as batch:
        batch.drop_index(batch.f("ix_console_session_last_seen_at"))
        batch.drop_index(batch.f("ix_console_session_agent_id"))
    op.drop_table("console_session")
