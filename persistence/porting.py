"""Repository of the porting domain: port-in rows."""

from __future__ import annotations

from collections.abc import Collection

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from models.statuses import PortStatus
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


IN_PROGRESS = (PortStatus.RECEIVED, PortStatus.SUBMITTED, PortStatus.CONFIRMED, PortStatus.RESOLUTION_REQUIRED)


async def ports_in_progress(session: AsyncSession, numbers: Collection[str], *, besides: Collection[str]) -> set[str]:
    """Which of these numbers have a port in progress on a line other than `besides` (any vendor's)."""
    if not numbers:
        return set()
    query = select(PortIn.port_number).where(
        col(PortIn.port_number).in_(numbers),
        col(PortIn.status).in_(IN_PROGRESS),
        col(PortIn.enrollment_id).not_in(besides),
    )
    return set((await session.exec(query)).all())


def second_port(clash: BaseException) -> bool:
    """Whether a refused write was a second port in progress of one number (PostgreSQL names the index,
    SQLite the column)."""
    text = str(getattr(clash, "orig", clash))
    return "uq_port_in_progress" in text or "port_in.port_number" in text
