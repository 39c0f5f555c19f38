"""A line's activation as its activity writes it, in the two statements it needs (issue 25's statement count):
one UPDATE … RETURNING that marks the line ACTIVATING (and its shipment) and reads what the carrier order needs,
before the carrier call, and one conditional UPDATE that records the carrier's numbers, after it."""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from sqlalchemy import bindparam, case, func, literal, update
from sqlmodel import col

from models.statuses import LineStatus
from models.tables.enrollment import Line
from persistence.errors import RecordNotFound
from persistence.transaction import Transaction

# Statuses an activation moves on from: a first try's, a waiting line's, support's retry (its own retry was moved
# to ACTIVATING by its workflow, with its event).
STARTING = (LineStatus.RECEIVED, LineStatus.CUSTOMER_CREATED, LineStatus.WAITING_ACTIVATION, LineStatus.RETRYING)


class Activating(NamedTuple):
    vendor_id: int
    parent_enrollment_id: str
    pii: str
    plan_id: int
    iccid: str | None
    esn: str | None
    is_esim: bool
    status: str
    mdn: str | None
    msid: str | None
    msl: str | None
    activation_later: bool
    esim_profile: str | None


_STARTING = col(Line.status).in_(STARTING)
_BEGIN = (
    update(Line)
    .where(col(Line.enrollment_id) == bindparam("eid"))
    .values(
        status=case((_STARTING, literal(LineStatus.ACTIVATING.value)), else_=col(Line.status)),
        status_since=case((_STARTING, bindparam("now")), else_=col(Line.status_since)),
        shipment_reference=case(
            ((col(Line.enrollment_type) == "SHIPMENT") & col(Line.shipment_reference).is_(None), bindparam("shipment")),
            else_=col(Line.shipment_reference),
        ),
    )
    .returning(*(getattr(Line, name) for name in Activating._fields))
)
_RECORD = (
    update(Line)
    .where(col(Line.enrollment_id) == bindparam("eid"), col(Line.status) != LineStatus.ACTIVE.value)
    .values(
        mdn=bindparam("mdn"),
        msid=bindparam("msid"),
        msl=bindparam("msl"),
        iccid=func.coalesce(col(Line.iccid), bindparam("iccid")),
        esim_profile=func.coalesce(bindparam("profile"), col(Line.esim_profile)),
        status=LineStatus.ACTIVE.value,
        last_error=None,
        status_since=bindparam("now"),
        activated_at=bindparam("now"),
    )
)


async def begin(transaction: Transaction, enrollment_id: str, *, shipment: str, now: datetime) -> Activating:
    """The line ACTIVATING (unless a retried attempt finds it past that), and what the carrier order needs."""
    rows = await transaction.rows(_BEGIN, {"eid": enrollment_id, "now": now, "shipment": shipment})
    if not rows:
        raise RecordNotFound(f"line {enrollment_id} not found")
    return Activating._make(rows[0])


async def record(
    transaction: Transaction,
    enrollment_id: str,
    *,
    numbers: tuple[str, str, str],
    iccid: str | None,
    profile: str | None,
    now: datetime,
) -> bool:
    """The carrier's numbers (and eSIM profile); False when the line was ACTIVE already (a repeated attempt)."""
    mdn, msid, msl = numbers
    values = {"eid": enrollment_id, "mdn": mdn, "msid": msid, "msl": msl, "iccid": iccid, "profile": profile}
    return await transaction.run(_RECORD, {**values, "now": now}) == 1
