"""Who calls (issue 35, item 2): an API user made by 'agent create --pin' bound to its agent.

An API user named as one of its vendor's agents is that agent's own API credential (`agent create --pin` made it
under the agent's name; `agent disable` already treats it so): it is linked to the agent here, and its tokens act
as that agent only. Agents holding `support` or `admin` give their API password on every call from now on; those
without one are named in the log, a line each, for an operator to give them one (`lineup agent set-roles …
--require-api-password …`), and `lineup agent list` marks them until then.

Revision ID: 0023
Revises: 0022
Create Date: 2026-11-27 19:45:00.000000
"""

import logging
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0023"
down_revision: str | None = "0022"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

log = logging.getLogger("alembic.runtime.migration")  # where alembic's own lines go
PRIVILEGED = ("support", "admin")  # models.auth.PRIVILEGED as this revision knows it (a revision keeps its own copy)
TWIN = "agent.vendor_id = api_user.vendor_id AND agent.username = api_user.username"
LINK = (
    f"UPDATE api_user SET agent_id = (SELECT agent.id FROM agent WHERE {TWIN}) "
    f"WHERE EXISTS (SELECT 1 FROM agent WHERE {TWIN})"
)
WITHOUT_API_PASSWORD = (
    "SELECT vendor.code, agent.username, agent.roles FROM agent JOIN vendor ON vendor.id = agent.vendor_id "
    "WHERE NOT agent.requires_api_password ORDER BY vendor.code, agent.username"
)


def upgrade() -> None:
    with op.batch_alter_table("api_user") as batch:
        batch.add_column(sa.Column("agent_id", sa.Integer(), nullable=True))
        batch.create_index("ix_api_user_agent_id", ["agent_id"], unique=True)
        batch.create_foreign_key("fk_api_user_agent_id_agent", "agent", ["agent_id"], ["id"])
    bind = op.get_bind()
    linked = bind.execute(sa.text(LINK)).rowcount
    log.info("%s API user(s) linked to the agent of their name and vendor", linked)
    for vendor, username, roles in bind.execute(sa.text(WITHOUT_API_PASSWORD)).all():
        held = [role for role in roles.split(",") if role in PRIVILEGED]
        if held:
            log.warning(
                "agent %s of vendor %s has the %s role without an API password: give it one with `lineup agent "
                "set-roles --vendor-id %s --username %s --role … --require-api-password …`",
                username,
                vendor,
                " and ".join(held),
                vendor,
                username,
            )


def downgrade() -> None:
    with op.batch_alter_table("api_user") as batch:
        batch.drop_constraint("fk_api_user_agent_id_agent", type_="foreignkey")
        batch.drop_index("ix_api_user_agent_id")
        batch.drop_column("agent_id")
