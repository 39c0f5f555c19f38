"""The console's overview (issue 30) counts a vendor's events of some types since some hour: one index on
(vendor_id, type, created) makes those counts a range of the index instead of every event of the vendor.

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-25 20:00:00.000000
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("line_event") as batch:
        batch.create_index("ix_line_event_vendor_type_created", ["vendor_id", "type", "created"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("line_event") as batch:
        batch.drop_index("ix_line_event_vendor_type_created")
