"""The lines waiting for support, on SQLite and PostgreSQL: STUCK ones and those RECEIVED longer than the grace,
narrowed by their last error (any case, `%` and `_` taken literally) and by how long they waited; and the
orders of never-started lines rebuilt from every one of their lines, as the sweep and support's retry start them."""

from __future__ import annotations

import secrets
from datetime import timedelta

from sqlmodel import col, select

from models.auth import Vendor
from models.enrollment.lines import Enrollment, Line, Pacing, orders_of
from models.support import NEVER_STARTED, Waiting, count_waiting, shown_error, waiting_lines
from models.types import utcnow

NOW = utcnow()
GRACE = Waiting(received_before=NOW - timedelta(minutes=2))


async def vendor(session) -> tuple[int, str]:
    row = Vendor(code=f"V{secrets.token_hex(4).upper()}", name="Waiting Wireless")
    session.add(row)
    await session.flush()
    assert row.id is not None
    return row.id, row.code


def a_line(
    session,
    vendor_id: int,
    name: str,
    status: str,
    *,
    ago: timedelta,
    error: str | None = None,
    order: str | None = None,
) -> str:
    """A line `ago` old in `status` since then; its id is unique in the database the run shares."""
    enrollment_id = f"{name}{secrets.token_hex(6).upper()}"
    session.add(Enrollment(enrollment_id=enrollment_id, vendor_id=vendor_id, zip_code="30301", state="GA"))
    session.add(
        Line(
            enrollment_id=enrollment_id,
            parent_enrollment_id=enrollment_id,
            order_id=order or f"order-{enrollment_id}",
            vendor_id=vendor_id,
            agent_username="demo.agent",
            plan_id=102,
            activation_type="NEWACTIVATION",
            enrollment_type="SHIPMENT",
            email_hash="0" * 64,
            pii="sealed",
            customer_id=enrollment_id[-9:],
            cust_id=enrollment_id[-9:],
            status=status,
            last_error=error,
            status_since=NOW - ago,
            created_at=NOW - ago,
        )
    )
    return enrollment_id


async def test_waiting_lines_by_error_and_age_and_the_orders_of_those_never_started(db):
    async with db.transaction() as session:
        (mine, code), (others, _) = await vendor(session), await vendor(session)
        order = f"enrollment-{secrets.token_hex(8)}"
        sim = a_line(session, mine, "S", "STUCK", ago=timedelta(hours=2), error="915 SIM already in use")
        first = a_line(session, mine, "R", "RECEIVED", ago=timedelta(hours=1), order=order)
        second = a_line(session, mine, "R", "RECEIVED", ago=timedelta(hours=1, seconds=-1), order=order)
        outage = a_line(session, mine, "S", "STUCK", ago=timedelta(minutes=10), error="HTTP 503 (100%_off)")
        a_line(session, mine, "R", "RECEIVED", ago=timedelta(seconds=5))  # its request may still start it
        a_line(session, mine, "A", "ACTIVE", ago=timedelta(hours=3))
        elsewhere = a_line(session, others, "S", "STUCK", ago=timedelta(hours=4), error="915 SIM already in use")

    async def ids(waiting: Waiting, vendor_id: int | None = mine) -> list[str]:
        async with db.transaction() as session:
            lines = await waiting_lines(session, waiting, vendor_id=vendor_id, limit=100)
            counted = await count_waiting(session, waiting, vendor_id=vendor_id)
        assert counted >= len(lines)
        return [line.enrollment_id for line in lines]

    assert await ids(GRACE) == [sim, first, second, outage]  # longest waiting first
    assert await ids(Waiting(GRACE.received_before, error_contains="sim ALREADY")) == [sim]
    assert await ids(Waiting(GRACE.received_before, error_contains="never STARTED")) == [first, second]
    assert await ids(Waiting(GRACE.received_before, error_contains="100%_off")) == [outage]
    assert await ids(Waiting(GRACE.received_before, error_contains="100%x")) == []  # `%` is no wildcard
    assert await ids(Waiting(GRACE.received_before, waiting_since=NOW - timedelta(minutes=30))) == [sim, first, second]
    assert elsewhere in await ids(GRACE, vendor_id=None)

    async with db.transaction() as session:
        [received] = await waiting_lines(session, Waiting(GRACE.received_before, "never"), vendor_id=mine, limit=1)
        assert await count_waiting(session, Waiting(GRACE.received_before, "never"), vendor_id=mine) == 2
        by_ids = await orders_of(session, [order], pacing=Pacing())
        by_query = await orders_of(
            session, select(Line.order_id).where(col(Line.enrollment_id) == second), pacing=Pacing()
        )
    assert shown_error(received) == NEVER_STARTED
    assert by_ids == by_query
    [found] = by_ids
    assert (found.order_id, found.parent_enrollment_id, found.enrollment_ids) == (order, first, [first, second])
    assert (found.vendor_code, found.agent_id, found.pacing) == (code, "demo.agent", Pacing())
