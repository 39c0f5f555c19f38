"""Login hardening: agent_password is throttled as API-user logins are, wrong login-log OTPs are counted per API
user, and a session's tokens are found by their login-log entry (logout ends them).

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-23 09:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes  # autogenerate renders column types by this path
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("agent") as batch:
        batch.add_column(sa.Column("failed_logins", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("locked_until", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
    with op.batch_alter_table("api_user") as batch:
        batch.add_column(sa.Column("otp_failures", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("otp_window_start", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
    with op.batch_alter_table("api_token") as batch:
        batch.create_index(batch.f("ix_api_token_login_log_id"), ["login_log_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("api_token") as batch:
        batch.drop_index(batch.f("ix_api_token_login_log_id"))
    with op.batch_alter_table("api_user") as batch:
        batch.drop_column("otp_window_start")
        batch.drop_column("otp_failures")
    with op.batch_alter_table("agent") as batch:
        batch.drop_column("locked_until")
        batch.drop_column("failed_logins")
