"""The audit log: one row per operation call (who, what, outcome, how long), never the request body."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import insert

from models.clock import utcnow
from persistence.core import table
from persistence.transaction import Transaction
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


_INSERT = insert(table("audit_log"))


async def write(transaction: Transaction, facts: AuditFacts) -> None:
    """The row, in the transaction that commits the call's work (or its own, for a call refused early)."""
    row = {
        "request_id": facts.request_id,
        "at": utcnow(),
        "path": facts.path[:100],
        "action": (facts.action or "")[:64] or None,
        "vendor_id": facts.vendor_id,
        "api_user_id": facts.api_user_id,
        "agent_username": facts.agent_username,
        "msg_code": facts.msg_code,
        "http_status": facts.http_status,
        "duration_ms": facts.duration_ms,
    }
    await transaction.run(_INSERT, row)


async def record(uow: UnitOfWork, facts: AuditFacts) -> None:
    """Written in a transaction of its own (a call answered before the dispatcher could write it)."""
    uow.before_commit(lambda transaction: write(transaction, facts))
    await uow.commit()
