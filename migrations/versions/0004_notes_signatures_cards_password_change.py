"""Account notes, signatures, customer-login throttling, agent password changes and their proof images.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22 00:08:08.735363
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes  # autogenerate renders column types by this path
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "password_change",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("idempotency_key", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=True),
        sa.Column("vendor_id", sa.Integer(), nullable=False),
        sa.Column("agent_id", sa.Integer(), nullable=False),
        sa.Column("api_user_id", sa.Integer(), nullable=False),
        sa.Column("latitude", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("longitude", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("mail_outbox_id", sa.Integer(), nullable=True),
        sa.Column("changed_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["agent_id"],
            ["agent.id"],
        ),
        sa.ForeignKeyConstraint(
            ["api_user_id"],
            ["api_user.id"],
        ),
        sa.ForeignKeyConstraint(
            ["mail_outbox_id"],
            ["mail_outbox.id"],
        ),
        sa.ForeignKeyConstraint(
            ["vendor_id"],
            ["vendor.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("idempotency_key"),
    )
    with op.batch_alter_table("password_change", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_password_change_agent_id"), ["agent_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_password_change_vendor_id"), ["vendor_id"], unique=False)

    op.create_table(
        "signature",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("idempotency_key", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=True),
        sa.Column("vendor_id", sa.Integer(), nullable=False),
        sa.Column("agent_id", sa.Integer(), nullable=False),
        sa.Column("enrollment_id", sqlmodel.sql.sqltypes.AutoString(length=24), nullable=True),
        sa.Column("media_type", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("sha256", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("image", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["agent_id"],
            ["agent.id"],
        ),
        sa.ForeignKeyConstraint(
            ["enrollment_id"],
            ["enrollment.enrollment_id"],
        ),
        sa.ForeignKeyConstraint(
            ["vendor_id"],
            ["vendor.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("idempotency_key"),
    )
    with op.batch_alter_table("signature", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_signature_agent_id"), ["agent_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_signature_enrollment_id"), ["enrollment_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_signature_vendor_id"), ["vendor_id"], unique=False)

    op.create_table(
        "customer_login",
        sa.Column("enrollment_id", sqlmodel.sql.sqltypes.AutoString(length=24), nullable=False),
        sa.Column("failed_logins", sa.Integer(), nullable=False),
        sa.Column("locked_until", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["enrollment_id"],
            ["line.enrollment_id"],
        ),
        sa.PrimaryKeyConstraint("enrollment_id"),
    )
    op.create_table(
        "note",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("idempotency_key", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=True),
        sa.Column("vendor_id", sa.Integer(), nullable=False),
        sa.Column("enrollment_id", sqlmodel.sql.sqltypes.AutoString(length=24), nullable=False),
        sa.Column("customer_id", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("text", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("latitude", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("longitude", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("is_activity", sa.Boolean(), nullable=False),
        sa.Column("activity_type", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=True),
        sa.Column("agent_id", sa.Integer(), nullable=True),
        sa.Column("api_user_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["agent_id"],
            ["agent.id"],
        ),
        sa.ForeignKeyConstraint(
            ["api_user_id"],
            ["api_user.id"],
        ),
        sa.ForeignKeyConstraint(
            ["enrollment_id"],
            ["line.enrollment_id"],
        ),
        sa.ForeignKeyConstraint(
            ["vendor_id"],
            ["vendor.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("idempotency_key"),
    )
    with op.batch_alter_table("note", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_note_customer_id"), ["customer_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_note_enrollment_id"), ["enrollment_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_note_vendor_id"), ["vendor_id"], unique=False)

    op.create_table(
        "proof_image",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("password_change_id", sa.Integer(), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("media_type", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("sha256", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("image", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(
            ["password_change_id"],
            ["password_change.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("proof_image", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_proof_image_password_change_id"), ["password_change_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("proof_image", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_proof_image_password_change_id"))

    op.drop_table("proof_image")
    with op.batch_alter_table("note", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_note_vendor_id"))
        batch_op.drop_index(batch_op.f("ix_note_enrollment_id"))
        batch_op.drop_index(batch_op.f("ix_note_customer_id"))

    op.drop_table("note")
    op.drop_table("customer_login")
    with op.batch_alter_table("signature", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_signature_vendor_id"))
        batch_op.drop_index(batch_op.f("ix_signature_enrollment_id"))
        batch_op.drop_index(batch_op.f("ix_signature_agent_id"))

    op.drop_table("signature")
    with op.batch_alter_table("password_change", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_password_change_vendor_id"))
        batch_op.drop_index(batch_op.f("ix_password_change_agent_id"))

    op.drop_table("password_change")
