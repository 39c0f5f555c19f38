"""Repository of the enrollment domain: the line rows services and activities share. PII stays sealed in the
row; the caller opens it (models.crypto) only where it is used."""

from __future__ import annotations

import hashlib
from collections.abc import Collection
from itertools import groupby

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from sqlmodel.sql.expression import SelectOfScalar

from models.messages.enrollment import EnrollmentOrder, LinePlan, Pacing
from models.statuses import LineStatus
from models.tables.auth import Vendor
from models.tables.enrollment import Line
from persistence.errors import RecordNotFound


def email_hash(email: str) -> str:
    """What a line stores of its e-mail for the customer login: the digest of the normalized address."""
    return hashlib.sha256(email.strip().lower().encode()).hexdigest()


async def get_line(session: AsyncSession, enrollment_id: str) -> Line:
    """The line with this enrollment id, or RecordNotFound."""
    line = await session.get(Line, enrollment_id)
    if line is None:
        raise RecordNotFound(f"line {enrollment_id} not found")
    return line


async def vendor_line(session: AsyncSession, enrollment_id: str, *, vendor_id: int | None) -> Line | None:
    """The vendor's line with this enrollment id; another vendor's line is as absent as a missing one.
    vendor_id None: any vendor's (the operators' CLI)."""
    line = await session.get(Line, enrollment_id)
    return line if line is not None and vendor_id in (None, line.vendor_id) else None


async def customer_line(session: AsyncSession, *, customer_id: str, vendor_id: int) -> Line | None:
    """The vendor's line holding this customer id (each line is a customer), or None."""
    query = select(Line).where(Line.customer_id == customer_id, Line.vendor_id == vendor_id)
    return (await session.exec(query)).first()


async def account_lines(session: AsyncSession, *, cust_id: str, vendor_id: int) -> list[Line]:
    """Every line of the account (the account holder's customer id is each line's cust_id), oldest first."""
    query = select(Line).where(Line.cust_id == cust_id, Line.vendor_id == vendor_id).order_by(col(Line.created_at))
    return list((await session.exec(query)).all())


async def esim_profiles(session: AsyncSession, enrollment_ids: list[str]) -> dict[str, str]:
    """The sealed eSIM profile of each of these lines that has one."""
    query = select(Line.enrollment_id, Line.esim_profile).where(
        col(Line.enrollment_id).in_(enrollment_ids), col(Line.esim_profile).is_not(None)
    )
    return {enrollment_id: profile for enrollment_id, profile in (await session.exec(query)).all() if profile}


async def lines_of_order(session: AsyncSession, order_id: str) -> list[Line]:
    return list((await session.exec(select(Line).where(Line.order_id == order_id))).all())


async def orders_of(
    session: AsyncSession, order_ids: Collection[str] | SelectOfScalar[str], *, pacing: Pacing
) -> list[EnrollmentOrder]:
    """The orders with these ids (or those a query of ids selects) as intake would have started them, rebuilt
    from every one of their lines: an order started with some of its lines would lose the others. The sweep
    and support's retry start what intake left behind from this."""
    if isinstance(order_ids, Collection) and not order_ids:
        return []
    query = (
        select(Line, Vendor.code)
        .join(Vendor, col(Vendor.id) == col(Line.vendor_id))
        .where(col(Line.order_id).in_(order_ids))
        .order_by(col(Line.order_id), col(Line.created_at), col(Line.enrollment_id))
    )
    rows = (await session.exec(query)).all()
    return [_order(list(group), pacing) for _, group in groupby(rows, key=lambda row: row[0].order_id)]


def _order(rows: list[tuple[Line, str]], pacing: Pacing) -> EnrollmentOrder:
    first, vendor_code = rows[0]
    ids = [line.enrollment_id for line, _ in rows]
    return EnrollmentOrder(first.order_id, first.parent_enrollment_id, ids, vendor_code, first.agent_username, pacing)


def plan_of(line: Line) -> LinePlan:
    """A line with its customer record, as the enrollment workflow plans and answers it."""
    assert line.customer_id is not None and line.cust_id is not None
    return LinePlan(
        enrollment_id=line.enrollment_id, customer_id=line.customer_id, cust_id=line.cust_id,
        enrollment_type=line.enrollment_type, activation_type=line.activation_type,
        activation_later=line.activation_later, invoice_number=line.invoice_number, carrier=line.carrier,
        status=LineStatus(line.status), mdn=line.mdn, msid=line.msid, msl=line.msl,
    )  # fmt: skip
