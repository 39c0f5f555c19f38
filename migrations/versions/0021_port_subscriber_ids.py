"""Port records that name their SIMs (issue 34, item 4): each port order gets its own number (get_list's
port_subscriber_id, what submit_portin names the port by), random so that one vendor's numbers say nothing of
another's, and the SIM the number had at the losing carrier when the port request gave it. Orders already there
are numbered here, each once.

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-27 17:00:00.000000
"""

import random
from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes  # autogenerate renders column types by this path
from alembic import op

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

String = sqlmodel.sql.sqltypes.AutoString
PORT_NUMBERS = range(10**9, 10**10)  # as models.porting draws them; a revision keeps its own copy


def upgrade() -> None:
    with op.batch_alter_table("port_in") as batch:
        batch.add_column(sa.Column("subscriber_id", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("old_esn", String(length=32), nullable=True))
    bind = op.get_bind()
    orders = bind.execute(sa.text("SELECT enrollment_id FROM port_in ORDER BY enrollment_id")).scalars().all()
    # A sample: no number twice, drawn by the system's random source as new orders' are.
    numbers = random.SystemRandom().sample(PORT_NUMBERS, len(orders))
    if orders:
        bind.execute(
            sa.text("UPDATE port_in SET subscriber_id = :number WHERE enrollment_id = :enrollment_id"),
            [{"number": number, "enrollment_id": eid} for eid, number in zip(orders, numbers, strict=True)],
        )
    with op.batch_alter_table("port_in") as batch:
        batch.alter_column("subscriber_id", existing_type=sa.BigInteger(), nullable=False)
        batch.create_index("ix_port_in_subscriber_id", ["subscriber_id"], unique=True)


def downgrade() -> None:
    with op.batch_alter_table("port_in") as batch:
        batch.drop_index("ix_port_in_subscriber_id")
        batch.drop_column("old_esn")
        batch.drop_column("subscriber_id")
