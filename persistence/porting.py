"""Repository of the porting domain: port-in rows."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession

from models.tables.porting import PortIn
from persistence.errors import RecordNotFound


async def get_port(session: AsyncSession, enrollment_id: str) -> PortIn:
    """The port-in order of this line, or RecordNotFound."""
    port = await session.get(PortIn, enrollment_id)
    if port is None:
        raise RecordNotFound(f"port-in of line {enrollment_id} not found")
    return port
