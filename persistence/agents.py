"""Agents as the access checks and services see them: plain values read once per request, so nothing
expires or lazy-loads after a rolled-back transaction."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from models.tables.agents import Agent, role_set


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
        """From an Agent, or a row of its AGENT_COLUMNS."""
        return cls(
            id=row.id, username=row.username, vendor_id=row.vendor_id, active=row.active,
            roles=role_set(row.roles), email=row.email,
            requires_api_password=row.requires_api_password, api_password_hash=row.api_password_hash,
        )  # fmt: skip


AGENT_COLUMNS = (
    col(Agent.id), col(Agent.username), col(Agent.vendor_id), col(Agent.active), col(Agent.roles), col(Agent.email),
    col(Agent.requires_api_password), col(Agent.api_password_hash),
)  # fmt: skip


async def vendor_agent(session: AsyncSession, *, vendor_id: int, username: str) -> Agent | None:
    """The vendor's agent with this username, or None."""
    query = select(Agent).where(Agent.username == username, Agent.vendor_id == vendor_id)
    return (await session.exec(query)).first()
