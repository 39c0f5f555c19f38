"""The audit log: one row per operation call (who, what, outcome, how long), never the request body."""

from __future__ import annotations

from dataclasses import dataclass

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


async def record(uow: UnitOfWork, facts: AuditFacts) -> None:
    """Written in the request's own session, after its answer has gone out."""
    async with uow.transaction() as session:
        session.add(
            AuditEntry(
                request_id=facts.request_id, path=facts.path[:100], action=facts.action or None,
                vendor_id=facts.vendor_id, api_user_id=facts.api_user_id, agent_username=facts.agent_username,
                msg_code=facts.msg_code, http_status=facts.http_status, duration_ms=facts.duration_ms,
            )
        )  # fmt: skip
