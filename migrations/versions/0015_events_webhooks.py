"""The event log of every line and the signed webhooks that deliver it to channels (issue 21).

Revision ID: 0015
Revises: 0014_security
Create Date: 2026-11-26 09:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes  # autogenerate renders column types by this path
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014_security"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

String = sqlmodel.sql.sqltypes.AutoString
When = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    op.create_table(
        "line_event",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("public_id", String(length=40), nullable=False),
        sa.Column("vendor_id", sa.Integer(), nullable=False),
        sa.Column("enrollment_id", String(length=24), nullable=False),
        sa.Column("type", String(length=40), nullable=False),
        sa.Column("actor", String(length=120), nullable=False),
        sa.Column("data", String(), nullable=False),
        sa.Column("created", When(), nullable=False),
        sa.ForeignKeyConstraint(["vendor_id"], ["vendor.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("public_id"),
    )
    with op.batch_alter_table("line_event") as batch:
        batch.create_index(batch.f("ix_line_event_vendor_id"), ["vendor_id"], unique=False)
        batch.create_index(batch.f("ix_line_event_enrollment_id"), ["enrollment_id"], unique=False)
        batch.create_index(batch.f("ix_line_event_created"), ["created"], unique=False)
    op.create_table(
        "webhook_endpoint",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("public_id", String(length=40), nullable=False),
        sa.Column("vendor_id", sa.Integer(), nullable=False),
        sa.Column("url", String(length=500), nullable=False),
        sa.Column("event_types", String(length=1000), nullable=False),
        sa.Column("secret", String(), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("disabled_reason", String(length=300), nullable=True),
        sa.Column("failing_since", When(), nullable=True),
        sa.Column("created_at", When(), nullable=False),
        sa.ForeignKeyConstraint(["vendor_id"], ["vendor.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("public_id"),
    )
    with op.batch_alter_table("webhook_endpoint") as batch:
        batch.create_index(batch.f("ix_webhook_endpoint_vendor_id"), ["vendor_id"], unique=False)
    op.create_table(
        "webhook_delivery",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("endpoint_id", sa.Integer(), nullable=False),
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("status", String(length=16), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_status", sa.Integer(), nullable=True),
        sa.Column("last_answer", String(length=300), nullable=True),
        sa.Column("first_attempt_at", When(), nullable=True),
        sa.Column("last_attempt_at", When(), nullable=True),
        sa.Column("delivered_at", When(), nullable=True),
        sa.Column("created_at", When(), nullable=False),
        sa.ForeignKeyConstraint(["endpoint_id"], ["webhook_endpoint.id"]),
        sa.ForeignKeyConstraint(["event_id"], ["line_event.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("endpoint_id", "event_id"),
    )
    with op.batch_alter_table("webhook_delivery") as batch:
        batch.create_index(batch.f("ix_webhook_delivery_endpoint_id"), ["endpoint_id"], unique=False)
        batch.create_index(batch.f("ix_webhook_delivery_event_id"), ["event_id"], unique=False)
        batch.create_index(batch.f("ix_webhook_delivery_status"), ["status"], unique=False)


def downgrade() -> None:
    op.drop_table("webhook_delivery")
    op.drop_table("webhook_endpoint")
    op.drop_table("line_event")
