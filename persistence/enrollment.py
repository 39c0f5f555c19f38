"""Repository of the enrollment domain: the line rows services and activities share. PII stays sealed in the
row; the caller opens it (models.crypto) only where it is used."""

from __future__ import annotations

from collections.abc import Collection
from itertools import groupby

from sqlalchemy import update
from sqlmodel import col, select
from sqlmodel.sql.expression import SelectOfScalar

from models.clock import utcnow
from models.crypto import FieldCipher
from models.messages.enrollment import EnrollmentOrder, LinePlan, Pacing
from models.statuses import LineStatus
from models.tables.auth import Vendor
from models.tables.enrollment import Enrollment, Line, Plan
from persistence.errors import RecordNotFound
from persistence.transaction import DbSession


def email_hash(cipher: FieldCipher, email: str) -> str:
    """What a line stores of its e-mail for the customer login: the keyed digest of the normalized address (an
    unkeyed one could be matched against a list of addresses by anyone holding the table)."""
    return cipher.digest("email", email.strip().lower())


async def get_line(session: DbSession, enrollment_id: str) -> Line:
    """The line with this enrollment id, or RecordNotFound."""
    line = await session.get(Line, enrollment_id)
    if line is None:
        raise RecordNotFound(f"line {enrollment_id} not found")
    return line


async def vendor_line(session: DbSession, enrollment_id: str, *, vendor_id: int | None) -> Line | None:
    """The vendor's line with this enrollment id; another vendor's line is as absent as a missing one.
    vendor_id None: any vendor's (the operators' CLI)."""
    line = await session.get(Line, enrollment_id)
    return line if line is not None and vendor_id in (None, line.vendor_id) else None


async def customer_line(session: DbSession, *, customer_id: str, vendor_id: int) -> Line | None:
    """The vendor's line holding this customer id (each line is a customer), or None."""
    query = select(Line).where(Line.customer_id == customer_id, Line.vendor_id == vendor_id)
    return (await session.exec(query)).first()


async def sim_line(session: DbSession, *, iccid: str, vendor_id: int) -> Line | None:
    """The vendor's newest line with this SIM attached, or None (the original names a line by its SIM too)."""
    query = (
        select(Line)
        .where(Line.iccid == iccid, Line.vendor_id == vendor_id)
        .order_by(col(Line.created_at).desc(), col(Line.enrollment_id))
    )
    return (await session.exec(query)).first()


async def email_lines(session: DbSession, *, cipher: FieldCipher, email: str, vendor_id: int) -> list[Line]:
    """The vendor's lines enrolled with this e-mail (compared as the login compares it), oldest first."""
    query = (
        select(Line)
        .where(Line.email_hash == email_hash(cipher, email), Line.vendor_id == vendor_id)
        .order_by(col(Line.created_at), col(Line.enrollment_id))
    )
    return list((await session.exec(query)).all())


async def accounts_lines(
    session: DbSession, *, cust_ids: Collection[str], vendor_id: int
) -> list[tuple[Line, str, Plan]]:
    """Every line of these accounts (the account holder's customer id is each line's cust_id), oldest first,
    with the ZIP its enrollment id was issued for and its plan."""
    query = (
        select(Line, Enrollment.zip_code, Plan)
        .join(Enrollment, col(Enrollment.enrollment_id) == col(Line.enrollment_id))
        .join(Plan, col(Plan.plan_id) == col(Line.plan_id))
        .where(col(Line.cust_id).in_(cust_ids), Line.vendor_id == vendor_id)
        .order_by(col(Line.created_at), col(Line.enrollment_id))
    )
    return [(line, zip_code, plan) for line, zip_code, plan in (await session.exec(query)).all()]


async def sealed_extras(
    session: DbSession, enrollment_ids: Collection[str]
) -> dict[str, tuple[str | None, str | None]]:
    """Each line's sealed account PIN and sealed eSIM profile (None where it has none), by enrollment id."""
    query = select(Line.enrollment_id, Line.pin, Line.esim_profile).where(col(Line.enrollment_id).in_(enrollment_ids))
    return {enrollment_id: (pin, profile) for enrollment_id, pin, profile in (await session.exec(query)).all()}


async def give_pin(session: DbSession, enrollment_id: str, sealed_pin: str) -> None:
    """Gives a line without a PIN this one; a line that got one meanwhile keeps its own (the first writer wins)."""
    await session.execute(
        update(Line).where(col(Line.enrollment_id) == enrollment_id, col(Line.pin).is_(None)).values(pin=sealed_pin)
    )


async def lines_of_order(session: DbSession, order_id: str) -> list[Line]:
    return list((await session.exec(select(Line).where(Line.order_id == order_id))).all())


async def orders_of(
    session: DbSession, order_ids: Collection[str] | SelectOfScalar[str], *, pacing: Pacing
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
    plans = [plan_of(line) for line, _ in rows]
    return EnrollmentOrder(first.order_id, first.parent_enrollment_id, plans, vendor_code, first.agent_username, pacing)


def plan_of(line: Line) -> LinePlan:
    """A line with its customer record, as the enrollment workflow plans and answers it."""
    assert line.customer_id is not None and line.cust_id is not None
    return LinePlan(
        enrollment_id=line.enrollment_id,
        customer_id=line.customer_id,
        cust_id=line.cust_id,
        enrollment_type=line.enrollment_type,
        activation_type=line.activation_type,
        activation_later=line.activation_later,
        invoice_number=line.invoice_number,
        carrier=line.carrier,
        status=LineStatus(line.status),
        mdn=line.mdn,
        msid=line.msid,
        msl=line.msl,
        esim=line.is_esim,
    )


async def holding_line(session: DbSession, mdn: str, *, besides: str) -> Line | None:
    """The ACTIVE line of any vendor that holds `mdn`, other than line `besides`."""
    query = select(Line).where(
        col(Line.mdn) == mdn, col(Line.status) == LineStatus.ACTIVE, col(Line.enrollment_id) != besides
    )
    return (await session.exec(query)).first()


async def ported_out(session: DbSession, mdn: str, *, to: str) -> None:
    """Any other ACTIVE line holding `mdn` is PORTED_OUT: the carrier moved the number to line `to` (which may
    be another vendor's, so the error names no line). Written before `to` becomes ACTIVE with it (the unique
    index on active lines' numbers)."""
    await session.execute(
        update(Line)
        .where(col(Line.mdn) == mdn, col(Line.status) == LineStatus.ACTIVE, col(Line.enrollment_id) != to)
        .values(status=LineStatus.PORTED_OUT, last_error="Number ported out", status_since=utcnow())
    )
    await session.flush()
