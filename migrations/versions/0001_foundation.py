"""Foundation: vendors, API users, agents, tokens, login log, agent locations, audit log.

Revision ID: 0001
Revises:
Create Date: 2026-11-21 23:36:00.438083
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes  # autogenerate renders column types by this path
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "vendor",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("code", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("code"),
    )
    op.create_table(
        "agent",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("vendor_id", sa.Integer(), nullable=False),
        sa.Column("username", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("email", sqlmodel.sql.sqltypes.AutoString(length=254), nullable=True),
        sa.Column("roles", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("password_hash", sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
        sa.Column("requires_api_password", sa.Boolean(), nullable=False),
        sa.Column("api_password_hash", sqlmodel.sql.sqltypes.AutoString(length=255), nullable=True),
        sa.Column("password_changed_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["vendor_id"],
            ["vendor.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("username"),
    )
    with op.batch_alter_table("agent", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_agent_vendor_id"), ["vendor_id"], unique=False)

    op.create_table(
        "api_user",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("vendor_id", sa.Integer(), nullable=False),
        sa.Column("username", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("password_hash", sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
        sa.Column("pin_hash", sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("failed_logins", sa.Integer(), nullable=False),
        sa.Column("locked_until", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["vendor_id"],
            ["vendor.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("vendor_id", "username"),
    )
    with op.batch_alter_table("api_user", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_api_user_vendor_id"), ["vendor_id"], unique=False)

    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("request_id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("path", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("action", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
        sa.Column("vendor_id", sa.Integer(), nullable=True),
        sa.Column("api_user_id", sa.Integer(), nullable=True),
        sa.Column("agent_username", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=True),
        sa.Column("msg_code", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("http_status", sa.Integer(), nullable=False),
        sa.Column("duration_ms", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["api_user_id"],
            ["api_user.id"],
        ),
        sa.ForeignKeyConstraint(
            ["vendor_id"],
            ["vendor.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("audit_log", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_audit_log_at"), ["at"], unique=False)
        batch_op.create_index(batch_op.f("ix_audit_log_request_id"), ["request_id"], unique=False)

    op.create_table(
        "login_log",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("vendor_id", sa.Integer(), nullable=False),
        sa.Column("api_user_id", sa.Integer(), nullable=False),
        sa.Column("otp", sqlmodel.sql.sqltypes.AutoString(length=6), nullable=False),
        sa.Column("ip_address", sqlmodel.sql.sqltypes.AutoString(length=45), nullable=True),
        sa.Column("opened_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("closed_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("latitude", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True),
        sa.Column("longitude", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True),
        sa.ForeignKeyConstraint(
            ["api_user_id"],
            ["api_user.id"],
        ),
        sa.ForeignKeyConstraint(
            ["vendor_id"],
            ["vendor.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("login_log", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_login_log_otp"), ["otp"], unique=False)
        batch_op.create_index(batch_op.f("ix_login_log_vendor_id"), ["vendor_id"], unique=False)

    op.create_table(
        "agent_location",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("agent_id", sa.Integer(), nullable=False),
        sa.Column("vendor_id", sa.Integer(), nullable=False),
        sa.Column("latitude", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("longitude", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("ip_address", sqlmodel.sql.sqltypes.AutoString(length=45), nullable=True),
        sa.Column("login_log_id", sa.Integer(), nullable=True),
        sa.Column("reported_by", sa.Integer(), nullable=False),
        sa.Column("recorded_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["agent_id"],
            ["agent.id"],
        ),
        sa.ForeignKeyConstraint(
            ["login_log_id"],
            ["login_log.id"],
        ),
        sa.ForeignKeyConstraint(
            ["reported_by"],
            ["agent.id"],
        ),
        sa.ForeignKeyConstraint(
            ["vendor_id"],
            ["vendor.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("agent_location", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_agent_location_agent_id"), ["agent_id"], unique=False)

    op.create_table(
        "api_token",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("vendor_id", sa.Integer(), nullable=False),
        sa.Column("api_user_id", sa.Integer(), nullable=False),
        sa.Column("login_log_id", sa.Integer(), nullable=True),
        sa.Column("issued_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("expires_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("used_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["api_user_id"],
            ["api_user.id"],
        ),
        sa.ForeignKeyConstraint(
            ["login_log_id"],
            ["login_log.id"],
        ),
        sa.ForeignKeyConstraint(
            ["vendor_id"],
            ["vendor.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token_hash"),
    )
    with op.batch_alter_table("api_token", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_api_token_api_user_id"), ["api_user_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_api_token_expires_at"), ["expires_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("api_token", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_api_token_expires_at"))
        batch_op.drop_index(batch_op.f("ix_api_token_api_user_id"))

    op.drop_table("api_token")
    with op.batch_alter_table("agent_location", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_agent_location_agent_id"))

    op.drop_table("agent_location")
    with op.batch_alter_table("login_log", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_login_log_vendor_id"))
        batch_op.drop_index(batch_op.f("ix_login_log_otp"))

    op.drop_table("login_log")
    with op.batch_alter_table("audit_log", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_audit_log_request_id"))
        batch_op.drop_index(batch_op.f("ix_audit_log_at"))

    op.drop_table("audit_log")
    with op.batch_alter_table("api_user", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_api_user_vendor_id"))

    op.drop_table("api_user")
    with op.batch_alter_table("agent", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_agent_vendor_id"))

    op.drop_table("agent")
    op.drop_table("vendor")
