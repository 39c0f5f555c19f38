"""Enrollment: plans, enrollment ids, lines, port-in orders, payments, saved cards, tax calculations.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-21 23:43:18.596373
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes  # autogenerate renders column types by this path
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "plan",
        sa.Column("plan_id", sa.Integer(), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("price_cents", sa.Integer(), nullable=False),
        sa.Column("carrier", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("talk", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("text", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("data", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("plan_id"),
    )
    op.create_table(
        "enrollment",
        sa.Column("enrollment_id", sqlmodel.sql.sqltypes.AutoString(length=24), nullable=False),
        sa.Column("vendor_id", sa.Integer(), nullable=False),
        sa.Column("zip_code", sqlmodel.sql.sqltypes.AutoString(length=5), nullable=False),
        sa.Column("state", sqlmodel.sql.sqltypes.AutoString(length=2), nullable=False),
        sa.Column("enrollment_type", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("issued_by", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=True),
        sa.Column("issued_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("claimed_by", sqlmodel.sql.sqltypes.AutoString(length=120), nullable=True),
        sa.Column("claimed_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["vendor_id"],
            ["vendor.id"],
        ),
        sa.PrimaryKeyConstraint("enrollment_id"),
    )
    with op.batch_alter_table("enrollment", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_enrollment_claimed_by"), ["claimed_by"], unique=False)
        batch_op.create_index(batch_op.f("ix_enrollment_vendor_id"), ["vendor_id"], unique=False)

    op.create_table(
        "tax_calculation",
        sa.Column("calc_id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("vendor_id", sa.Integer(), nullable=False),
        sa.Column("invoice_number", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("state", sqlmodel.sql.sqltypes.AutoString(length=2), nullable=False),
        sa.Column("amount_cents", sa.Integer(), nullable=False),
        sa.Column("tax_cents", sa.Integer(), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=24), nullable=False),
        sa.Column("iccid", sqlmodel.sql.sqltypes.AutoString(length=22), nullable=True),
        sa.Column("reference_number", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True),
        sa.Column("updated_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["vendor_id"],
            ["vendor.id"],
        ),
        sa.PrimaryKeyConstraint("calc_id"),
    )
    with op.batch_alter_table("tax_calculation", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_tax_calculation_vendor_id"), ["vendor_id"], unique=False)

    op.create_table(
        "line",
        sa.Column("enrollment_id", sqlmodel.sql.sqltypes.AutoString(length=24), nullable=False),
        sa.Column("parent_enrollment_id", sqlmodel.sql.sqltypes.AutoString(length=24), nullable=False),
        sa.Column("order_id", sqlmodel.sql.sqltypes.AutoString(length=120), nullable=False),
        sa.Column("vendor_id", sa.Integer(), nullable=False),
        sa.Column("agent_username", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=True),
        sa.Column("plan_id", sa.Integer(), nullable=False),
        sa.Column("activation_type", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("enrollment_type", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("activation_later", sa.Boolean(), nullable=False),
        sa.Column("phone_type", sqlmodel.sql.sqltypes.AutoString(length=8), nullable=True),
        sa.Column("device_type", sqlmodel.sql.sqltypes.AutoString(length=8), nullable=True),
        sa.Column("brand_code", sqlmodel.sql.sqltypes.AutoString(length=8), nullable=True),
        sa.Column("sku_type", sqlmodel.sql.sqltypes.AutoString(length=8), nullable=True),
        sa.Column("model_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
        sa.Column("device_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
        sa.Column("iccid", sqlmodel.sql.sqltypes.AutoString(length=22), nullable=True),
        sa.Column("esn", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True),
        sa.Column("carrier", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True),
        sa.Column("invoice_number", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True),
        sa.Column("coupon_code", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
        sa.Column("email_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("password_hash", sqlmodel.sql.sqltypes.AutoString(length=255), nullable=True),
        sa.Column("pii", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("customer_id", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=True),
        sa.Column("cust_id", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=True),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=24), nullable=False),
        sa.Column("last_error", sqlmodel.sql.sqltypes.AutoString(length=500), nullable=True),
        sa.Column("status_since", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("mdn", sqlmodel.sql.sqltypes.AutoString(length=10), nullable=True),
        sa.Column("msid", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=True),
        sa.Column("msl", sqlmodel.sql.sqltypes.AutoString(length=8), nullable=True),
        sa.Column("shipment_reference", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True),
        sa.Column("activated_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["enrollment_id"],
            ["enrollment.enrollment_id"],
        ),
        sa.ForeignKeyConstraint(
            ["plan_id"],
            ["plan.plan_id"],
        ),
        sa.ForeignKeyConstraint(
            ["vendor_id"],
            ["vendor.id"],
        ),
        sa.PrimaryKeyConstraint("enrollment_id"),
        sa.UniqueConstraint("customer_id"),
    )
    with op.batch_alter_table("line", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_line_email_hash"), ["email_hash"], unique=False)
        batch_op.create_index(batch_op.f("ix_line_mdn"), ["mdn"], unique=False)
        batch_op.create_index(batch_op.f("ix_line_order_id"), ["order_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_line_parent_enrollment_id"), ["parent_enrollment_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_line_status"), ["status"], unique=False)
        batch_op.create_index(batch_op.f("ix_line_vendor_id"), ["vendor_id"], unique=False)

    op.create_table(
        "saved_card",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("vendor_id", sa.Integer(), nullable=False),
        sa.Column("enrollment_id", sqlmodel.sql.sqltypes.AutoString(length=24), nullable=False),
        sa.Column("payment_token", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("brand", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("last4", sqlmodel.sql.sqltypes.AutoString(length=4), nullable=False),
        sa.Column("exp_month", sqlmodel.sql.sqltypes.AutoString(length=2), nullable=False),
        sa.Column("exp_year", sqlmodel.sql.sqltypes.AutoString(length=4), nullable=False),
        sa.Column("holder", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=1), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["enrollment_id"],
            ["enrollment.enrollment_id"],
        ),
        sa.ForeignKeyConstraint(
            ["vendor_id"],
            ["vendor.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("saved_card", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_saved_card_enrollment_id"), ["enrollment_id"], unique=False)

    op.create_table(
        "payment",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("idempotency_key", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("vendor_id", sa.Integer(), nullable=False),
        sa.Column("enrollment_id", sqlmodel.sql.sqltypes.AutoString(length=24), nullable=False),
        sa.Column("plan_id", sa.Integer(), nullable=False),
        sa.Column("invoice_number", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("transaction_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("amount_cents", sa.Integer(), nullable=False),
        sa.Column("tax_cents", sa.Integer(), nullable=False),
        sa.Column("calc_id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True),
        sa.Column("coupon_code", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
        sa.Column("coupon_transaction_id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True),
        sa.Column("card_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["card_id"],
            ["saved_card.id"],
        ),
        sa.ForeignKeyConstraint(
            ["enrollment_id"],
            ["enrollment.enrollment_id"],
        ),
        sa.ForeignKeyConstraint(
            ["plan_id"],
            ["plan.plan_id"],
        ),
        sa.ForeignKeyConstraint(
            ["vendor_id"],
            ["vendor.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("idempotency_key"),
        sa.UniqueConstraint("invoice_number"),
    )
    with op.batch_alter_table("payment", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_payment_enrollment_id"), ["enrollment_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_payment_vendor_id"), ["vendor_id"], unique=False)

    op.create_table(
        "port_in",
        sa.Column("enrollment_id", sqlmodel.sql.sqltypes.AutoString(length=24), nullable=False),
        sa.Column("port_number", sqlmodel.sql.sqltypes.AutoString(length=10), nullable=False),
        sa.Column("current_carrier", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("secrets", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("carrier_port_id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=24), nullable=False),
        sa.Column("resolution_code", sqlmodel.sql.sqltypes.AutoString(length=8), nullable=True),
        sa.Column("resolution_description", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=True),
        sa.Column("carrier_response", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=True),
        sa.Column("requested_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("responded_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["enrollment_id"],
            ["line.enrollment_id"],
        ),
        sa.PrimaryKeyConstraint("enrollment_id"),
    )
    with op.batch_alter_table("port_in", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_port_in_port_number"), ["port_number"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("port_in", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_port_in_port_number"))

    op.drop_table("port_in")
    with op.batch_alter_table("payment", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_payment_vendor_id"))
        batch_op.drop_index(batch_op.f("ix_payment_enrollment_id"))

    op.drop_table("payment")
    with op.batch_alter_table("saved_card", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_saved_card_enrollment_id"))

    op.drop_table("saved_card")
    with op.batch_alter_table("line", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_line_vendor_id"))
        batch_op.drop_index(batch_op.f("ix_line_status"))
        batch_op.drop_index(batch_op.f("ix_line_parent_enrollment_id"))
        batch_op.drop_index(batch_op.f("ix_line_order_id"))
        batch_op.drop_index(batch_op.f("ix_line_mdn"))
        batch_op.drop_index(batch_op.f("ix_line_email_hash"))

    op.drop_table("line")
    with op.batch_alter_table("tax_calculation", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_tax_calculation_vendor_id"))

    op.drop_table("tax_calculation")
    with op.batch_alter_table("enrollment", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_enrollment_vendor_id"))
        batch_op.drop_index(batch_op.f("ix_enrollment_claimed_by"))

    op.drop_table("enrollment")
    op.drop_table("plan")
