"""Account PIN: every customer (line) has a 4-digit PIN for port-out and account checks, stored encrypted
(decisions.md, "Account PIN"). Lines made before have none until an answer first needs it
(services/enrollment/pins.py gives them one then: the key that encrypts it is not the migration's to use).

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-24 04:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes  # autogenerate renders column types by this path
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("line") as batch:
        batch.add_column(sa.Column("pin", sqlmodel.sql.sqltypes.AutoString(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("line") as batch:
        batch.drop_column("pin")
