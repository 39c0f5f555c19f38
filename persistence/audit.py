"""The audit log: one row per operation call (who, what, outcome, how long), never the request body."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from sqlalchemy import insert
from sqlmodel.ext.asyncio.session import AsyncSession

from models.clock import utcnow
from models.tables.audit import AuditEntry
from persistence.uow import UnitOfWork


@dataclass(frozen=True)
class AuditFacts:
    request_id: str
    path: str
    action: str | None
    vendor_id: int | None
    api_user_id: int | None
    agent_username: str | None
    msg_code: str
    http_status: int
    duration_ms: int


_INSERT = insert(AuditEntry)


async def write(session: AsyncSession, facts: AuditFacts) -> None:
    """The row, in the transaction that commits the call's work (or its own, for a call refused early)."""
    row = asdict(facts) | {"path": facts.path[:100], "action": (facts.action or "")[:64] or None, "at": utcnow()}
    # A Core INSERT: every call writes one, and an ORM entity would cost more than the statement.
    await session.execute(_INSERT, row)


async def record(uow: UnitOfWork, facts: AuditFacts) -> None:
    """Written in a transaction of its own (a call answered before the dispatcher could write it)."""
    async with uow.transaction() as session:
        await write(session, facts)
