"""Support console sessions: the browser keeps a random token in its cookie, the database only the token's hash.
A session ends when its agent signs out, or when it has not been used for the idle timeout."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import delete, insert, update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from models.clock import utcnow
from models.tables.agent import Agent
from models.tables.console import ConsoleSession
from models.tables.vendor import Vendor
from persistence.agents import AgentRef
from persistence.tokens import digest


@dataclass(frozen=True)
class AgentLogin:
    """An agent as the console's sign-in reads it: the row to verify, and its vendor's code and state."""

    agent: AgentRef
    password_hash: str
    vendor_code: str
    vendor_active: bool


async def agent_login(session: AsyncSession, username: str) -> AgentLogin | None:
    """The agent with this username (usernames are unique across vendors), with its vendor; None if unknown."""
    query = select(Agent, Vendor).join(Vendor, col(Vendor.id) == col(Agent.vendor_id)).where(Agent.username == username)
    row = (await session.exec(query)).first()
    if row is None:
        return None
    agent, vendor = row
    return AgentLogin(AgentRef.of(agent), agent.password_hash, vendor.code, vendor.active)


async def open_session(session: AsyncSession, *, agent_id: int, vendor_id: int, ip: str | None, idle: timedelta) -> str:
    """A new session's token. Sessions idle past the timeout (of anyone) are deleted here, so the table holds
    little more than the sessions in use."""
    token, now = secrets.token_urlsafe(32), utcnow()
    await session.execute(delete(ConsoleSession).where(col(ConsoleSession.last_seen_at) <= now - idle))
    await session.execute(
        insert(ConsoleSession).values(
            token_hash=digest(token), agent_id=agent_id, vendor_id=vendor_id, ip_address=ip, started_at=now,
            last_seen_at=now,
        )
    )  # fmt: skip
    return token


async def touch_session(session: AsyncSession, token: str, *, idle: timedelta) -> int | None:
    """The session's agent id, moving its idle clock; None (and the row deleted) once it sat idle too long.
    The conditional UPDATE decides alone, so a request racing the timeout sees one answer."""
    hashed, now = digest(token), utcnow()
    touched = await session.execute(
        update(ConsoleSession)
        .where(col(ConsoleSession.token_hash) == hashed, col(ConsoleSession.last_seen_at) > now - idle)
        .values(last_seen_at=now)
        .returning(col(ConsoleSession.agent_id))
    )
    row = touched.first()
    if row is None:
        await end_session(session, token)
        return None
    agent_id: int = row[0]
    return agent_id


async def end_session(session: AsyncSession, token: str) -> None:
    await session.execute(delete(ConsoleSession).where(col(ConsoleSession.token_hash) == digest(token)))


async def active_agent(session: AsyncSession, agent_id: int) -> tuple[AgentRef, str] | None:
    """The agent and its vendor's code while both are active; None once either was disabled."""
    query = (
        select(Agent, Vendor.code)
        .join(Vendor, col(Vendor.id) == col(Agent.vendor_id))
        .where(col(Agent.id) == agent_id, col(Agent.active), col(Vendor.active))
    )
    row = (await session.exec(query)).first()
    return (AgentRef.of(row[0]), row[1]) if row is not None else None
