"""Repository of the support domain: the lines waiting for support, the console's views of a vendor's lines
(waiting for a later activation, port-ins waiting for a correction, the search by enrollment id, MDN or
customer id), and console sessions (the browser keeps a random token in its cookie, the database only the
token's hash; a session ends when its agent signs out, when it has not been used for the idle timeout, when it
is older than its longest life, or when its agent's password changed after it began)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import ColumnElement, and_, delete, exists, false, func, insert, or_, update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from models.clock import utcnow
from models.statuses import LineStatus, PortStatus
from models.tables.agents import Agent
from models.tables.auth import Vendor
from models.tables.enrollment import Line
from models.tables.porting import PortIn
from models.tables.support import ConsoleSession
from persistence.agents import AgentRef
from persistence.auth.tokens import digest


async def lines_in_status(session: AsyncSession, status: LineStatus, *, vendor_id: int, limit: int) -> list[Line]:
    """The vendor's lines in `status`, longest in it first."""
    query = (
        select(Line)
        .where(Line.vendor_id == vendor_id, Line.status == status)
        .order_by(col(Line.status_since), col(Line.enrollment_id))
    )
    return list((await session.exec(query.limit(limit))).all())


async def ports_in_status(
    session: AsyncSession, status: PortStatus, *, vendor_id: int, limit: int
) -> list[tuple[Line, PortIn]]:
    """The vendor's port-in orders in `status` with their lines, longest waiting first."""
    query = (
        select(Line, PortIn)
        .join(PortIn, col(PortIn.enrollment_id) == col(Line.enrollment_id))
        .where(Line.vendor_id == vendor_id, PortIn.status == status)
        .order_by(col(PortIn.responded_at), col(Line.enrollment_id))
    )
    return [(line, port) for line, port in (await session.exec(query.limit(limit))).all()]


async def find_lines(
    session: AsyncSession, wanted: str, *, vendor_id: int, limit: int
) -> list[tuple[Line, PortIn | None]]:
    """The vendor's lines whose enrollment id, parent enrollment id, MDN, customer id or account id is `wanted`,
    or that port the number `wanted` in, each with its port order if it has one."""
    columns = (Line.enrollment_id, Line.parent_enrollment_id, Line.mdn, Line.customer_id, Line.cust_id)
    query = (
        select(Line, PortIn)
        .outerjoin(PortIn, col(PortIn.enrollment_id) == col(Line.enrollment_id))
        .where(
            Line.vendor_id == vendor_id,
            or_(*(col(column) == wanted for column in columns), col(PortIn.port_number) == wanted),
        )
        .order_by(col(Line.created_at), col(Line.enrollment_id))
    )
    return [(line, port) for line, port in (await session.exec(query.limit(limit))).all()]


@dataclass(frozen=True)
class AgentLogin:
    """An agent as the console's sign-in reads it: the row to verify, and its vendor's code and state."""

    agent: AgentRef
    password_hash: str
    vendor_code: str
    vendor_active: bool


async def agent_logins(session: AsyncSession, username: str, *, vendor_code: str | None) -> list[AgentLogin]:
    """The agents with this username, with their vendors: of every vendor (a username is unique within its
    vendor only), or of the one named."""
    query = select(Agent, Vendor).join(Vendor, col(Vendor.id) == col(Agent.vendor_id)).where(Agent.username == username)
    if vendor_code is not None:
        query = query.where(Vendor.code == vendor_code.upper())
    rows = (await session.exec(query.order_by(col(Agent.id)))).all()
    return [
        AgentLogin(AgentRef.of_entity(agent), agent.password_hash, vendor.code, vendor.active) for agent, vendor in rows
    ]


@dataclass(frozen=True)
class SessionLimits:
    idle: timedelta  # unused this long: over
    most: timedelta  # begun this long ago: over, however busy


async def open_session(
    session: AsyncSession, *, agent_id: int, vendor_id: int, ip: str | None, limits: SessionLimits
) -> str:
    """A new session's token. Sessions over (of anyone) are deleted here, so the table holds little more than
    the sessions in use."""
    token, now = secrets.token_urlsafe(32), utcnow()
    over = or_(
        col(ConsoleSession.last_seen_at) <= now - limits.idle, col(ConsoleSession.started_at) <= now - limits.most
    )
    await session.execute(delete(ConsoleSession).where(over))
    await session.execute(
        insert(ConsoleSession).values(
            token_hash=digest(token),
            agent_id=agent_id,
            vendor_id=vendor_id,
            ip_address=ip,
            started_at=now,
            last_seen_at=now,
        )
    )
    return token


async def touch_session(session: AsyncSession, token: str, *, limits: SessionLimits) -> int | None:
    """The session's agent id, moving its idle clock; None (and the row deleted) once it sat idle too long,
    lasted longer than the limits allow, or its agent's password changed after it began (the old password's
    holder must not keep a way in). The conditional UPDATE decides alone, so a request racing a limit sees one
    answer."""
    hashed, now = digest(token), utcnow()
    password_changed = exists().where(
        col(Agent.id) == col(ConsoleSession.agent_id), col(Agent.password_changed_at) >= col(ConsoleSession.started_at)
    )
    touched = await session.execute(
        update(ConsoleSession)
        .where(col(ConsoleSession.token_hash) == hashed, col(ConsoleSession.last_seen_at) > now - limits.idle)
        .where(col(ConsoleSession.started_at) > now - limits.most, ~password_changed)
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
    return (AgentRef.of_entity(row[0]), row[1]) if row is not None else None


# What support reads as the last error of a line intake stored while Temporal was away (RECEIVED, no workflow).
NEVER_STARTED = "Never started: the workflow engine was unavailable when it was accepted"


@dataclass(frozen=True)
class Waiting:
    """The lines waiting for support: STUCK ones, and RECEIVED ones older than the sweep's grace (intake stored
    them, their workflow never started). Optionally narrowed by their last error and how long they waited."""

    received_before: datetime  # a younger RECEIVED line may still be starting its own workflow
    error_contains: str | None = None  # case-insensitive, in the last error as support reads it
    waiting_since: datetime | None = None  # waiting at least since then

    def clause(self) -> ColumnElement[bool]:
        stuck: list[ColumnElement[bool]] = [col(Line.status) == LineStatus.STUCK]
        received: list[ColumnElement[bool]] = [
            col(Line.status) == LineStatus.RECEIVED,
            col(Line.created_at) < self.received_before,
        ]
        if self.waiting_since is not None:
            stuck.append(col(Line.status_since) <= self.waiting_since)
            received.append(col(Line.created_at) <= self.waiting_since)
        if self.error_contains:
            wanted = self.error_contains.lower()
            stuck.append(func.lower(col(Line.last_error)).contains(wanted, autoescape=True))
            if wanted not in NEVER_STARTED.lower():
                received.append(false())
        return or_(and_(*stuck), and_(*received))


async def waiting_lines(session: AsyncSession, waiting: Waiting, *, vendor_id: int | None, limit: int) -> list[Line]:
    """Lines waiting for support, longest waiting first (all vendors when vendor_id is None)."""
    query = select(Line).where(waiting.clause()).order_by(col(Line.status_since), col(Line.enrollment_id))
    if vendor_id is not None:
        query = query.where(Line.vendor_id == vendor_id)
    return list((await session.exec(query.limit(limit))).all())


async def count_waiting(session: AsyncSession, waiting: Waiting, *, vendor_id: int | None) -> int:
    query = select(func.count()).select_from(Line).where(waiting.clause())
    if vendor_id is not None:
        query = query.where(Line.vendor_id == vendor_id)
    return (await session.exec(query)).one()


def shown_error(line: Line) -> str:
    """The last error as support reads it; a RECEIVED line has none of its own."""
    return line.last_error or (NEVER_STARTED if line.status == LineStatus.RECEIVED else "")


async def claim_retries(session: AsyncSession, enrollment_ids: list[str]) -> set[str]:
    """Support's retry of these lines, taken once: one conditional write moves each line still STUCK to
    RETRYING (its workflow moves it on). The ids it moved; of N retries of one line at once, one gets it."""
    if not enrollment_ids:
        return set()
    moved = await session.execute(
        update(Line)
        .where(col(Line.enrollment_id).in_(enrollment_ids), col(Line.status) == LineStatus.STUCK)
        # Stamped: a claim older than the sweep's grace never reached its workflow (release_unsent_retries).
        .values(status=LineStatus.RETRYING, status_since=utcnow())
        .returning(col(Line.enrollment_id))
    )
    return set(moved.scalars().all())


async def release_unsent_retries(session: AsyncSession, claimed_before: datetime) -> list[str]:
    """Claims whose signal never left (the API died between the RETRYING write and the signal): a workflow
    that took its retry has moved its line on within seconds, so a line RETRYING since before the sweep's grace
    is STUCK again, for support (or its own timer) to retry. A retry still on its way finds the line STUCK and
    moves it on as usual. The ids released."""
    released = await session.execute(
        update(Line)
        .where(col(Line.status) == LineStatus.RETRYING, col(Line.status_since) < claimed_before)
        .values(status=LineStatus.STUCK)
        .returning(col(Line.enrollment_id))
    )
    return sorted(released.scalars().all())


async def release_retries(session: AsyncSession, enrollment_ids: list[str]) -> None:
    """Retries that never reached their workflow (the engine was away): the lines are STUCK again."""
    if enrollment_ids:
        await session.execute(
            update(Line)
            .where(col(Line.enrollment_id).in_(enrollment_ids), col(Line.status) == LineStatus.RETRYING)
            .values(status=LineStatus.STUCK)
        )
