"""Payments before activation (issue 19, finding 6): a processor's reference up to 255 characters, recorded
once per vendor (a unique index on the references given); the plans a payment covers; the vendor setting that
makes a settled payment required before a line activates.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-24 04:10:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes  # autogenerate renders column types by this path
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

HAS_REFERENCE = "transaction_id <> ''"
DUPLICATES = (
    "SELECT vendor_id, transaction_id, COUNT(*) FROM payment WHERE transaction_id <> '' "
    "GROUP BY vendor_id, transaction_id HAVING COUNT(*) > 1"
)


def upgrade() -> None:
    # The index cannot be built over references already recorded twice; which of two records is right is a
    # person's decision, so the upgrade stops and says where to look rather than choosing.
    duplicated = op.get_bind().execute(sa.text(DUPLICATES)).fetchall()
    if duplicated:
        raise RuntimeError(
            f"{len(duplicated)} payment reference(s) are recorded more than once for one vendor; resolve them "
            f"before upgrading (find them with: {DUPLICATES})"
        )
    with op.batch_alter_table("payment") as batch:
        batch.alter_column(
            "transaction_id",
            existing_type=sqlmodel.sql.sqltypes.AutoString(length=64),
            type_=sqlmodel.sql.sqltypes.AutoString(length=255),
            existing_nullable=False,
        )
        batch.add_column(sa.Column("plans", sqlmodel.sql.sqltypes.AutoString(length=400), nullable=True))
    op.create_index(
        "uq_payment_vendor_reference",
        "payment",
        ["vendor_id", "transaction_id"],
        unique=True,
        sqlite_where=sa.text(HAS_REFERENCE),
        postgresql_where=sa.text(HAS_REFERENCE),
    )
    # A plain ALTER TABLE … ADD COLUMN on both engines: a batch would rebuild the vendor table on SQLite, which
    # every other table references.
    op.add_column("vendor", sa.Column("require_payment", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("vendor") as batch:
        batch.drop_column("require_payment")
    op.drop_index("uq_payment_vendor_reference", table_name="payment")
    with op.batch_alter_table("payment") as batch:
        batch.drop_column("plans")
        batch.alter_column(
            "transaction_id",
            existing_type=sqlmodel.sql.sqltypes.AutoString(length=255),
            type_=sqlmodel.sql.sqltypes.AutoString(length=64),
            existing_nullable=False,
        )
