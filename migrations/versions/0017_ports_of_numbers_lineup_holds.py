"""Ports of numbers Lineup holds (issue 27, findings 2 and 7; issue 26, a port into an ACTIVE line): one port in
progress per number (a partial unique index, the backstop behind intake's refusal), and the number a line gave
back when it took its ported one.

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-25 20:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016_agents_per_vendor"  # 0016 is named so (the chain was broken)
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

IN_PROGRESS = sa.text("status IN ('RECEIVED', 'SUBMITTED', 'CONFIRMED', 'RESOLUTION_REQUIRED')")

# Ports of one number that ran in parallel before the refusal existed: the newest order stays, the others end.
PARALLEL = """
UPDATE port_in SET status = 'CANCELLED', carrier_response = 'Another port of this number was in progress'
WHERE status IN ('RECEIVED', 'SUBMITTED', 'CONFIRMED', 'RESOLUTION_REQUIRED') AND EXISTS (
    SELECT 1 FROM port_in AS newer
    WHERE newer.port_number = port_in.port_number AND newer.enrollment_id > port_in.enrollment_id
      AND newer.status IN ('RECEIVED', 'SUBMITTED', 'CONFIRMED', 'RESOLUTION_REQUIRED'))
"""


def upgrade() -> None:
    with op.batch_alter_table("line") as batch:
        batch.add_column(sa.Column("released_mdn", sa.String(length=10), nullable=True))
    op.execute(PARALLEL)
    op.create_index(
        "uq_port_in_progress",
        "port_in",
        ["port_number"],
        unique=True,
        sqlite_where=IN_PROGRESS,
        postgresql_where=IN_PROGRESS,
    )


def downgrade() -> None:
    op.drop_index("uq_port_in_progress", table_name="port_in")
    with op.batch_alter_table("line") as batch:
        batch.drop_column("released_mdn")
