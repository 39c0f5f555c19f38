"""The support console's views of a vendor's lines that the other services do not need: lines waiting for a
later activation, port-ins waiting for a correction, and the search by enrollment id, MDN or customer id."""

from __future__ import annotations

from sqlalchemy import or_
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from models.statuses import LineStatus, PortStatus
from models.tables.enrollment import Line, PortIn


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


async def find_lines(session: AsyncSession, wanted: str, *, vendor_id: int, limit: int) -> list[Line]:
    """The vendor's lines whose enrollment id, parent enrollment id, MDN, customer id or account id is `wanted`."""
    columns = (Line.enrollment_id, Line.parent_enrollment_id, Line.mdn, Line.customer_id, Line.cust_id)
    query = (
        select(Line)
        .where(Line.vendor_id == vendor_id, or_(*(col(column) == wanted for column in columns)))
        .order_by(col(Line.created_at), col(Line.enrollment_id))
    )
    return list((await session.exec(query.limit(limit))).all())
