"""Writes the audit log: one row per operation call, never the request body."""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from models.db import transaction
from models.tables.audit import AuditEntry

log = logging.getLogger("lineup.audit")


class AuditLog:
    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions

    async def record(self, fields: dict[str, Any]) -> None:
        entry = AuditEntry(
            request_id=fields["request_id"],
            path=fields["path"][:100],
            action=(fields.get("action") or None),
            vendor_id=fields.get("vendor_id"),
            api_user_id=fields.get("api_user_id"),
            agent_username=fields.get("agent"),
            msg_code=fields["msg_code"],
            http_status=fields["status"],
            duration_ms=fields["duration_ms"],
        )
        try:
            async with transaction(self._sessions) as session:
                session.add(entry)
        except Exception:  # the answer is already sent; a lost audit row must not become a 500
            log.exception("audit write failed", extra={"request_id": fields["request_id"]})
