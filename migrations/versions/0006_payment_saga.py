"""make_payment as a saga: the payment row is the intent, written before the card is charged.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-22 13:20:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes  # autogenerate renders column types by this path
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("payment") as batch:
        # Every payment written before the saga was charged and recorded in one step.
        batch.add_column(
            sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False, server_default="APPROVED")
        )
        batch.add_column(sa.Column("attempt", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("card_on_file", sqlmodel.sql.sqltypes.AutoString(), nullable=True))
        batch.add_column(sa.Column("updated_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
        batch.create_index("ix_payment_status", ["status"])


def downgrade() -> None:
    with op.batch_alter_table("payment") as batch:
        batch.drop_index("ix_payment_status")
        batch.drop_column("updated_at")
        batch.drop_column("card_on_file")
        batch.drop_column("attempt")
        batch.drop_column("status")
