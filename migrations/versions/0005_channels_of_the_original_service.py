"""Channels of the original service: plan codes and numeric allowances, eSIM lines, payment methods.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-22 12:30:00.000000
"""

import re
from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes  # autogenerate renders column types by this path
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

plan = sa.table(
    "plan",
    sa.column("plan_id", sa.Integer),
    sa.column("carrier", sa.String),
    sa.column("name", sa.String),
    sa.column("talk", sa.String),
    sa.column("text", sa.String),
    sa.column("data", sa.String),
    sa.column("plan_code", sa.String),
    sa.column("description", sa.String),
    sa.column("talk_minutes", sa.Integer),
    sa.column("text_messages", sa.Integer),
    sa.column("data_mb", sa.Integer),
)


def _amount(text: str | None) -> int | None:
    """'Unlimited' → None; '5GB' → 5120; '500MB' → 500; '300' → 300."""
    if text is None or text.strip().lower() == "unlimited":
        return None
    found = re.fullmatch(r"\s*(\d+)\s*(GB|MB)?\s*", text, re.IGNORECASE)
    if found is None:
        return None
    number, unit = int(found.group(1)), (found.group(2) or "").upper()
    return number * 1024 if unit == "GB" else number


def upgrade() -> None:
    with op.batch_alter_table("plan") as batch:
        batch.add_column(sa.Column("plan_code", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True))
        batch.add_column(sa.Column("description", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=True))
        batch.add_column(sa.Column("talk_minutes", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("text_messages", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("data_mb", sa.Integer(), nullable=True))
    connection = op.get_bind()
    for row in connection.execute(sa.select(plan)).mappings().all():
        connection.execute(
            plan.update()
            .where(plan.c.plan_id == row["plan_id"])
            .values(
                plan_code=f"{row['carrier']}-{row['plan_id']}",
                description=row["name"],
                talk_minutes=_amount(row["talk"]),
                text_messages=_amount(row["text"]),
                data_mb=_amount(row["data"]),
            )
        )
    with op.batch_alter_table("plan") as batch:
        batch.alter_column("plan_code", nullable=False, existing_type=sqlmodel.sql.sqltypes.AutoString(length=32))
        batch.alter_column("description", nullable=False, existing_type=sqlmodel.sql.sqltypes.AutoString(length=200))
        batch.create_unique_constraint("uq_plan_plan_code", ["plan_code"])
        batch.drop_column("talk")
        batch.drop_column("text")
        batch.drop_column("data")
    with op.batch_alter_table("line") as batch:
        batch.add_column(sa.Column("is_esim", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("esim_profile", sqlmodel.sql.sqltypes.AutoString(), nullable=True))
    with op.batch_alter_table("payment") as batch:
        batch.add_column(
            sa.Column(
                "payment_method",
                sqlmodel.sql.sqltypes.AutoString(length=24),
                nullable=False,
                server_default="CREDIT_CARD",
            )
        )
        batch.add_column(sa.Column("payment_method_option", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("payment") as batch:
        batch.drop_column("payment_method_option")
        batch.drop_column("payment_method")
    with op.batch_alter_table("line") as batch:
        batch.drop_column("esim_profile")
        batch.drop_column("is_esim")
    with op.batch_alter_table("plan") as batch:
        batch.add_column(sa.Column("talk", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True))
        batch.add_column(sa.Column("text", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True))
        batch.add_column(sa.Column("data", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True))
        batch.drop_constraint("uq_plan_plan_code", type_="unique")
        batch.drop_column("data_mb")
        batch.drop_column("text_messages")
        batch.drop_column("talk_minutes")
        batch.drop_column("description")
        batch.drop_column("plan_code")
