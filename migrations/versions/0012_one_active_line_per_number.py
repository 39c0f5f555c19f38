"""One active line per number (issue 19, finding 15): a partial unique index on the MDN of ACTIVE lines, the
backstop behind intake's refusal of a port of an active line's number and the port-out marking of the line
that held a number when a port completes.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-24 04:20:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ACTIVE = sa.text("status = 'ACTIVE'")


# Numbers already held by two active lines (ported in before the refusal existed): the line that got the
# number last holds it, the others were ported out.
PORTED_OUT = """
UPDATE line SET status = 'PORTED_OUT', last_error = 'Number ported to another line'
WHERE status = 'ACTIVE' AND mdn IS NOT NULL AND EXISTS (
    SELECT 1 FROM line AS newer
    WHERE newer.mdn = line.mdn AND newer.status = 'ACTIVE' AND (
        COALESCE(newer.activated_at, newer.created_at) > COALESCE(line.activated_at, line.created_at)
        OR (COALESCE(newer.activated_at, newer.created_at) = COALESCE(line.activated_at, line.created_at)
            AND newer.enrollment_id > line.enrollment_id)))
"""


def upgrade() -> None:
    op.execute(PORTED_OUT)
    op.create_index("uq_line_active_mdn", "line", ["mdn"], unique=True, sqlite_where=ACTIVE, postgresql_where=ACTIVE)


def downgrade() -> None:
    op.drop_index("uq_line_active_mdn", table_name="line")
