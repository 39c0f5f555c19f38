"""Repository of the porting domain: port-in rows."""

from __future__ import annotations

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from models.tables.enrollment import Line
from models.tables.porting import PortIn
from persistence.errors import RecordNotFound


async def get_port(session: AsyncSession, enrollment_id: str) -> PortIn:
    """The port-in order of this line, or RecordNotFound."""
    port = await session.get(PortIn, enrollment_id)
    if port is None:
        raise RecordNotFound(f"port-in of line {enrollment_id} not found")
    return port


async def ports_of(session: AsyncSession, *, enrollment_id: str, cust_id: str | None, vendor_id: int) -> list[PortIn]:
    """The port orders of the vendor's line `enrollment_id`, or with `cust_id` of every line of that account."""
    query = select(PortIn).join(Line, col(Line.enrollment_id) == col(PortIn.enrollment_id))
    query = query.where(Line.vendor_id == vendor_id)
    query = query.where(Line.cust_id == cust_id) if cust_id else query.where(Line.enrollment_id == enrollment_id)
    return list((await session.exec(query.order_by(col(PortIn.enrollment_id)))).all())
