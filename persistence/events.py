"""Repository of the event log: each change to a line records its event in the transaction that makes the
change (or in the activity that does), with a delivery row for each of the vendor's webhook endpoints that
wants it (an outbox: the delivery workflow finds them). Helpers named after the change keep each hook in the
code that makes it to one line."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable

from sqlalchemy import insert
from sqlmodel import col, select

from models.clock import utcnow
from models.events import LINEUP, EventType
from models.statuses import LineStatus, PortStatus
from models.tables.enrollment import Line
from models.tables.events import LineEvent, WebhookDelivery, WebhookEndpoint
from models.tables.payment import Payment, TaxCalculation
from models.tables.porting import PortIn
from persistence.transaction import DbSession, before_commit, kept

Fact = str | int | bool | None
# A stuck line, or one support's retry has claimed (RETRYING) until its workflow takes the retry.
RETRIED_FROM = frozenset({LineStatus.STUCK, LineStatus.RETRYING})


async def record(
    session: DbSession,
    enrollment_id: str,
    kind: EventType,
    *,
    actor: str = LINEUP,
    vendor_id: int | None = None,
    line: Line | None = None,
    parent: str | None = None,
    **facts: Fact,
) -> None:
    """The event, written with the transaction's others when it commits (one multi-row INSERT), with its
    deliveries. A line's identifiers come from its row (the session's own when it holds it), or from the caller
    (`vendor_id` and `parent`); an enrollment without a line yet (a payment first) needs `vendor_id`; an event
    neither says the vendor of is not kept."""
    if line is None and not (vendor_id and parent):  # a caller that knows the line's ids needs no read
        line = await session.get(Line, enrollment_id)
    vendor = line.vendor_id if line is not None else vendor_id
    if vendor is None:
        return
    data: dict[str, Fact] = {
        "enrollment_id": enrollment_id,
        "parent_enrollment_id": line.parent_enrollment_id if line else parent,
        "mdn": line.mdn if line else None,
        **facts,
    }
    event = LineEvent(
        public_id=f"evt_{secrets.token_hex(12)}",
        vendor_id=vendor,
        enrollment_id=enrollment_id,
        type=kind.value,
        actor=actor[:120],
        data=json.dumps(data, separators=(",", ":")),
        created=utcnow(),
    )
    kept(session, EventsDue).append(event)
    before_commit(session, _write_pending)


class EventsDue(list[LineEvent]):
    """The transaction's events, written when it commits."""


async def _write_pending(session: DbSession) -> None:
    """The transaction's events in one INSERT, then one read of their vendors' endpoints and one INSERT of the
    deliveries those want (an outbox: the delivery workflow finds them)."""
    events = list(kept(session, EventsDue))
    kept(session, EventsDue).clear()
    if not events:
        return
    rows = [event.model_dump(exclude={"id"}) for event in events]
    written = await session.execute(
        insert(LineEvent).values(rows).returning(col(LineEvent.id), col(LineEvent.public_id))
    )
    ids = {public_id: event_id for event_id, public_id in written.all()}
    for event in events:
        event.id = ids[event.public_id]
    query = select(WebhookEndpoint.id, WebhookEndpoint.vendor_id, WebhookEndpoint.event_types).where(
        col(WebhookEndpoint.vendor_id).in_({event.vendor_id for event in events}), col(WebhookEndpoint.active)
    )
    endpoints = [(row_id, vendor, frozenset(types.split(","))) for row_id, vendor, types in await session.exec(query)]
    for event in events:
        assert event.id is not None
        for endpoint_id, vendor, types in endpoints:
            if vendor == event.vendor_id and event.type in types and endpoint_id is not None:
                session.add(WebhookDelivery(endpoint_id=endpoint_id, event_id=event.id))


def body_of(event: LineEvent) -> bytes:
    """The webhook body: the same bytes on every attempt, so a receiver's de-duplication by `id` is safe."""
    document = {
        "id": event.public_id,
        "type": event.type,
        "created": event.created.isoformat(),
        "data": json.loads(event.data),
    }
    return json.dumps(document, separators=(",", ":")).encode()


async def timeline(session: DbSession, enrollment_id: str) -> list[LineEvent]:
    """The line's events, oldest first."""
    query = select(LineEvent).where(LineEvent.enrollment_id == enrollment_id).order_by(col(LineEvent.id))
    return list((await session.exec(query)).all())


async def line_moved(session: DbSession, line: Line, status: str, error: str | None) -> None:
    """Before a line's status changes: STUCK is recorded with its error; leaving STUCK for another attempt is a
    retry, Lineup's own unless support asked for it since the line got stuck."""
    if status == LineStatus.STUCK:
        await record(session, line.enrollment_id, EventType.STUCK, error=error)
    elif (
        line.status in RETRIED_FROM
        and status == LineStatus.ACTIVATING
        and not await _support_retried(session, line.enrollment_id)
    ):
        await record(session, line.enrollment_id, EventType.RETRIED)


async def _support_retried(session: DbSession, enrollment_id: str) -> bool:
    query = (
        select(LineEvent.type, LineEvent.actor)
        .where(LineEvent.enrollment_id == enrollment_id)
        .where(col(LineEvent.type).in_([EventType.STUCK.value, EventType.RETRIED.value]))
        .order_by(col(LineEvent.id).desc())
        .limit(1)
    )
    last = (await session.exec(query)).first()
    return last is not None and last[0] == EventType.RETRIED and last[1] != LINEUP


async def retry_requested(session: DbSession, lines: Iterable[Line], *, actor: str) -> None:
    """Support's retry of stuck lines, recorded before the lines are signalled."""
    for line in lines:
        if line.status in RETRIED_FROM:
            await record(session, line.enrollment_id, EventType.RETRIED, actor=actor)


async def port_moved(session: DbSession, port: PortIn, status: str, resolution: str | None = None) -> None:
    """Before a port's status is stored: a change is recorded, and a resolution or completion besides."""
    if status == port.status:
        return
    eid = port.enrollment_id
    await record(session, eid, EventType.PORT_STATUS_CHANGED, status=status, previous=port.status)
    if status == PortStatus.RESOLUTION_REQUIRED:
        await record(session, eid, EventType.PORT_RESOLUTION_REQUIRED, resolution=resolution)
    elif status == PortStatus.COMPLETED:
        await record(session, eid, EventType.PORT_COMPLETED, ported_number=port.port_number)


async def payment_recorded(session: DbSession, payment: Payment) -> None:
    await record(
        session,
        payment.enrollment_id,
        EventType.PAYMENT_RECORDED,
        vendor_id=payment.vendor_id,
        invoice_number=payment.invoice_number,
        status=payment.status,
        method=payment.payment_method,
        amount_cents=payment.amount_cents,
        tax_cents=payment.tax_cents,
    )


async def tax_collected(session: DbSession, calc: TaxCalculation, status: str) -> None:
    """A tax calculation collected, for the enrollment whose payment registered it."""
    payment = (await session.exec(select(Payment).where(Payment.calc_id == calc.calc_id))).first()
    if payment is not None and calc.status != status:
        await record(
            session,
            payment.enrollment_id,
            EventType.TAX_COLLECTED,
            vendor_id=calc.vendor_id,
            calc_id=calc.calc_id,
            status=status,
        )


async def received(session: DbSession, lines: Iterable[Line], *, actor: str) -> None:
    """Intake stored these lines (in this transaction), each with its customer record and its SIM when it came
    with one."""
    for line in lines:
        await record(session, line.enrollment_id, EventType.RECEIVED, actor=actor, line=line)
        if line.iccid or line.esn:
            await record(session, line.enrollment_id, EventType.SIM_ATTACHED, actor=actor, line=line)
        await record(session, line.enrollment_id, EventType.CUSTOMER_CREATED, line=line)


async def corrected(session: DbSession, enrollment_id: str, fields: Iterable[str], *, actor: str) -> None:
    """Support or a channel corrected these fields of the line: the names, never the values."""
    for name in fields:
        await record(session, enrollment_id, EventType.CORRECTED, actor=actor, field=name)
