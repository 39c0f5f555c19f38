"""Port-out PIN failures counted per held number (issue 35, item 1) and port holds (item 3): a row per number Lineup
holds whose ports were checked (its wrong account/PIN checks in their window, and its lock); with each port order,
the time it began to wait for corrections (another vendor's port waits for it LINEUP_PORT_HOLD_HOURS) and the
digest of the old-account data last checked. Orders already waiting for corrections count from their last answer.

Revision ID: 0022
Revises: 0021
Create Date: 2026-11-27 19:45:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes  # autogenerate renders column types by this path
from alembic import op

revision: str = "0022"
down_revision: str | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

String = sqlmodel.sql.sqltypes.AutoString
When = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    op.create_table(
        "port_out_guard",
        sa.Column("port_number", String(length=10), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("window_start", When(), nullable=True),
        sa.Column("locked_until", When(), nullable=True),
        sa.PrimaryKeyConstraint("port_number"),
    )
    with op.batch_alter_table("port_in") as batch:
        batch.add_column(sa.Column("held_since", When(), nullable=True))
        batch.add_column(sa.Column("checked", String(length=64), nullable=True))
    op.execute(
        "UPDATE port_in SET held_since = COALESCE(responded_at, requested_at) WHERE status = 'RESOLUTION_REQUIRED'"
    )


def downgrade() -> None:
    with op.batch_alter_table("port_in") as batch:
        batch.drop_column("checked")
        batch.drop_column("held_since")
    op.drop_table("port_out_guard")
