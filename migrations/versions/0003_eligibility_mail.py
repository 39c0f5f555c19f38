"""Eligibility checks (what tpiv_listing lists) and the mail outbox.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-21 23:59:25.285158
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes  # autogenerate renders column types by this path
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "eligibility_check",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("check_key", sqlmodel.sql.sqltypes.AutoString(length=120), nullable=False),
        sa.Column("vendor_id", sa.Integer(), nullable=False),
        sa.Column("agent_username", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=True),
        sa.Column("enrollment_id", sqlmodel.sql.sqltypes.AutoString(length=24), nullable=True),
        sa.Column("zip_code", sqlmodel.sql.sqltypes.AutoString(length=5), nullable=False),
        sa.Column("outcome", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("initials", sqlmodel.sql.sqltypes.AutoString(length=3), nullable=False),
        sa.Column("first_name", sqlmodel.sql.sqltypes.AutoString(length=50), nullable=False),
        sa.Column("last_initial", sqlmodel.sql.sqltypes.AutoString(length=1), nullable=False),
        sa.Column("checked_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["vendor_id"],
            ["vendor.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("check_key"),
    )
    with op.batch_alter_table("eligibility_check", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_eligibility_check_enrollment_id"), ["enrollment_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_eligibility_check_vendor_id"), ["vendor_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_eligibility_check_zip_code"), ["zip_code"], unique=False)

    op.create_table(
        "mail_outbox",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("idempotency_key", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("vendor_id", sa.Integer(), nullable=False),
        sa.Column("agent_username", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=True),
        sa.Column("message_id", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("content", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("recipient_count", sa.Integer(), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("last_error", sqlmodel.sql.sqltypes.AutoString(length=500), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("sent_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["vendor_id"],
            ["vendor.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("idempotency_key"),
    )
    with op.batch_alter_table("mail_outbox", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_mail_outbox_status"), ["status"], unique=False)
        batch_op.create_index(batch_op.f("ix_mail_outbox_vendor_id"), ["vendor_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("mail_outbox", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_mail_outbox_vendor_id"))
        batch_op.drop_index(batch_op.f("ix_mail_outbox_status"))

    op.drop_table("mail_outbox")
    with op.batch_alter_table("eligibility_check", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_eligibility_check_zip_code"))
        batch_op.drop_index(batch_op.f("ix_eligibility_check_vendor_id"))
        batch_op.drop_index(batch_op.f("ix_eligibility_check_enrollment_id"))

    op.drop_table("eligibility_check")
