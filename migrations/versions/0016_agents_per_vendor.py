"""Agents per vendor (issue 26): an agent's username is unique within its vendor, not across vendors (every
storefront of the original uses the agent id `ewebsiteapi`). Every existing agent is kept: names unique across
vendors are unique within each.

Revision ID: 0016_agents_per_vendor
Revises: 0015
Create Date: 2026-11-27 09:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016_agents_per_vendor"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

PER_VENDOR = "uq_agent_vendor_username"
# 0001 made the username's constraint without a name: PostgreSQL named it itself, SQLite keeps none, so the batch
# (a table copy on SQLite) names an unnamed one by this convention to drop it.
CONVENTION = {"uq": "uq_%(table_name)s_%(column_0_name)s"}
SHARED_NAMES = "SELECT username, COUNT(*) FROM agent GROUP BY username HAVING COUNT(*) > 1"


def _username_constraint() -> str:
    """The name of the constraint on `username` alone, as the database has it (or as CONVENTION names it)."""
    for found in sa.inspect(op.get_bind()).get_unique_constraints("agent"):
        if found["column_names"] == ["username"] and found["name"]:
            return str(found["name"])
    return "uq_agent_username"


def upgrade() -> None:
    with op.batch_alter_table("agent", naming_convention=CONVENTION) as batch:
        batch.drop_constraint(_username_constraint(), type_="unique")
        batch.create_unique_constraint(PER_VENDOR, ["vendor_id", "username"])


def downgrade() -> None:
    # Names shared by two vendors cannot become unique again; which agent gives its name up is a person's call.
    shared = op.get_bind().execute(sa.text(SHARED_NAMES)).fetchall()
    if shared:
        raise RuntimeError(f"{len(shared)} agent username(s) are used by several vendors ({SHARED_NAMES})")
    with op.batch_alter_table("agent", naming_convention=CONVENTION) as batch:
        batch.drop_constraint(PER_VENDOR, type_="unique")
        batch.create_unique_constraint("uq_agent_username", ["username"])
