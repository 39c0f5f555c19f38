"""Agents as the access checks and services see them: plain values read once per request, so nothing
expires or lazy-loads after a rolled-back transaction."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sqlalchemy
from sqlalchemy import and_, bindparam
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from models.tables.agents import Agent, role_set
from models.tables.auth import Vendor


@dataclass(frozen=True)
class AgentRef:
    id: int
    username: str
    vendor_id: int
    active: bool
    roles: frozenset[str]
    email: str | None = None
    requires_api_password: bool = False
    api_password_hash: str | None = None

    @classmethod
    def of(cls, row: Any) -> AgentRef:
        """From an Agent, or a row of its _AGENT_COLUMNS."""
        return cls(
            id=row.id, username=row.username, vendor_id=row.vendor_id, active=row.active,
            roles=role_set(row.roles), email=row.email,
            requires_api_password=row.requires_api_password, api_password_hash=row.api_password_hash,
        )  # fmt: skip


_AGENT_COLUMNS = (
    col(Agent.id), col(Agent.username), col(Agent.vendor_id), col(Agent.active), col(Agent.roles), col(Agent.email),
    col(Agent.requires_api_password), col(Agent.api_password_hash),
)  # fmt: skip
# Built once, columns rather than entities: every authenticated call runs one of them.
_VENDOR_CODE = sqlalchemy.select(col(Vendor.code)).where(col(Vendor.id) == bindparam("vendor_id"))
_VENDOR_AND_AGENT = (
    sqlalchemy.select(col(Vendor.code), *_AGENT_COLUMNS)
    .select_from(Vendor)
    .outerjoin(Agent, and_(col(Agent.username) == bindparam("username")))
    .where(col(Vendor.id) == bindparam("vendor_id"))
)


async def vendor_and_agent(
    session: AsyncSession, *, vendor_id: int, username: str | None
) -> tuple[str, AgentRef | None]:
    """The token vendor's code and the agent named `username` (of any vendor, so the caller can tell
    "unknown" from "another company's"), in one statement."""
    if username is None:
        code: str = (await session.execute(_VENDOR_CODE, {"vendor_id": vendor_id})).scalar_one()
        return code, None
    row = (await session.execute(_VENDOR_AND_AGENT, {"vendor_id": vendor_id, "username": username})).one()
    return row.code, AgentRef.of(row) if row.id is not None else None


async def vendor_agent(session: AsyncSession, *, vendor_id: int, username: str) -> Agent | None:
    """The vendor's agent with this username, or None."""
    query = select(Agent).where(Agent.username == username, Agent.vendor_id == vendor_id)
    return (await session.exec(query)).first()
