"""Pending logins: the login throttle counts attempts still being verified apart from failures, so correct
logins in flight at once no longer lock an account (persistence/logins.py).

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-25 09:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes  # autogenerate renders column types by this path
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = ("api_user", "agent", "customer_login")


def upgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column("pending_logins", sa.Integer(), nullable=False, server_default="0"))
            batch.add_column(sa.Column("pending_since", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))


def downgrade() -> None:
    for table in reversed(TABLES):
        with op.batch_alter_table(table) as batch:
            batch.drop_column("pending_since")
            batch.drop_column("pending_logins")
