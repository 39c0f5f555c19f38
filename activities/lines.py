"""Reads and writes line rows for activities and the API, decrypting PII only where it is used."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from activities.errors import RecordNotFound
from models.crypto import FieldCipher
from models.tables.enrollment import Line, PortIn


def email_hash(email: str) -> str:
    return hashlib.sha256(email.strip().lower().encode()).hexdigest()


async def line_row(session: AsyncSession, enrollment_id: str) -> Line:
    """The line with this enrollment id, or RecordNotFound (a non-retryable activity failure)."""
    line = await session.get(Line, enrollment_id)
    if line is None:
        raise RecordNotFound(f"line {enrollment_id} not found")
    return line


async def port_row(session: AsyncSession, enrollment_id: str) -> PortIn:
    """The port-in order of this line, or RecordNotFound."""
    port = await session.get(PortIn, enrollment_id)
    if port is None:
        raise RecordNotFound(f"port-in of line {enrollment_id} not found")
    return port


class LineRepository:
    def __init__(self, sessions: async_sessionmaker[AsyncSession], cipher: FieldCipher) -> None:
        self.sessions, self.cipher = sessions, cipher

    def seal(self, document: dict[str, Any]) -> str:
        return self.cipher.encrypt(json.dumps(document, separators=(",", ":")))

    def open(self, sealed: str) -> dict[str, Any]:
        document: dict[str, Any] = json.loads(self.cipher.decrypt(sealed))
        return document

    async def line(self, enrollment_id: str) -> Line:
        async with self.sessions() as session:
            return await line_row(session, enrollment_id)

    async def port(self, enrollment_id: str) -> PortIn:
        async with self.sessions() as session:
            return await port_row(session, enrollment_id)

    async def lines_of_order(self, order_id: str) -> list[Line]:
        async with self.sessions() as session:
            return list((await session.exec(select(Line).where(Line.order_id == order_id))).all())

    async def stuck(self, *, vendor_id: int | None, limit: int) -> list[Line]:
        """Lines waiting for support, oldest first (all vendors when vendor_id is None)."""
        query = select(Line).where(Line.status == "STUCK").order_by(col(Line.status_since)).limit(limit)
        if vendor_id is not None:
            query = query.where(Line.vendor_id == vendor_id)
        async with self.sessions() as session:
            return list((await session.exec(query)).all())

    async def find(self, enrollment_id: str, *, vendor_id: int) -> Line | None:
        """The vendor's line with this enrollment id, or None."""
        async with self.sessions() as session:
            line = await session.get(Line, enrollment_id)
        return line if line is not None and line.vendor_id == vendor_id else None
