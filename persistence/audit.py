"""The audit log: one row per operation call (who, what, outcome, how long), never the request body."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from sqlalchemy import insert

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


async def record(uow: UnitOfWork, facts: AuditFacts) -> None:
    """Written in the request's own session, after its answer has gone out."""
    row = asdict(facts) | {"path": facts.path[:100], "action": facts.action or None, "at": utcnow()}
    async with uow.transaction() as session:
        # A Core INSERT: every call writes one, and an ORM entity would cost more than the statement.
        await session.execute(_INSERT, row)
