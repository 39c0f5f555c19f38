"""Agents as the access checks and services see them: plain values read once per request, so nothing
expires or lazy-loads after a rolled-back transaction."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import and_
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from models.tables.agent import Agent
from models.tables.vendor import Vendor


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
    def of(cls, agent: Agent) -> AgentRef:
        assert agent.id is not None
        return cls(
            id=agent.id, username=agent.username, vendor_id=agent.vendor_id, active=agent.active,
            roles=agent.role_set, email=agent.email, requires_api_password=agent.requires_api_password,
            api_password_hash=agent.api_password_hash,
        )  # fmt: skip


async def vendor_and_agent(
    session: AsyncSession, *, vendor_id: int, username: str | None
) -> tuple[str, AgentRef | None]:
    """The token vendor's code and the agent named `username` (of any vendor, so the caller can tell
    "unknown" from "another company's"), in one statement."""
    if username is None:
        code = (await session.exec(select(Vendor.code).where(Vendor.id == vendor_id))).one()
        return code, None
    query = (
        select(Vendor.code, Agent)
        .select_from(Vendor)
        .outerjoin(Agent, and_(col(Agent.username) == username))
        .where(Vendor.id == vendor_id)
    )
    code, agent = (await session.exec(query)).one()
    return code, AgentRef.of(agent) if agent is not None else None


async def vendor_agent(session: AsyncSession, *, vendor_id: int, username: str) -> Agent | None:
    """The vendor's agent with this username, or None."""
    query = select(Agent).where(Agent.username == username, Agent.vendor_id == vendor_id)
    return (await session.exec(query)).first()
