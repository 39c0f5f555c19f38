"""The carrier's tax rates last seen per state and plan, and the calculations quoted from them while its tax
service was down, waiting to be registered (issue 27, finding 15).

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-27 10:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes  # autogenerate renders column types by this path
from alembic import op

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

String = sqlmodel.sql.sqltypes.AutoString
When = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    op.create_table(
        "tax_rate",
        sa.Column("state", String(length=2), nullable=False),
        sa.Column("plan_id", sa.Integer(), nullable=False),
        sa.Column("amount_cents", sa.Integer(), nullable=False),
        sa.Column("tax_cents", sa.Integer(), nullable=False),
        sa.Column("items", String(), nullable=False),
        sa.Column("quoted_at", When(), nullable=False),
        sa.PrimaryKeyConstraint("state", "plan_id"),
    )
    op.create_table(
        "tax_registration",
        sa.Column("calc_id", String(length=32), nullable=False),
        sa.Column("vendor_id", sa.Integer(), nullable=False),
        sa.Column("idempotency_key", String(length=64), nullable=False),
        sa.Column("state", String(length=2), nullable=False),
        sa.Column("amount_cents", sa.Integer(), nullable=False),
        sa.Column("tax_cents", sa.Integer(), nullable=False),
        sa.Column("carrier_calc_id", String(length=32), nullable=True),
        sa.Column("carrier_tax_cents", sa.Integer(), nullable=True),
        sa.Column("created_at", When(), nullable=False),
        sa.Column("registered_at", When(), nullable=True),
        sa.ForeignKeyConstraint(["vendor_id"], ["vendor.id"]),
        sa.PrimaryKeyConstraint("calc_id"),
    )


def downgrade() -> None:
    op.drop_table("tax_registration")
    op.drop_table("tax_rate")
