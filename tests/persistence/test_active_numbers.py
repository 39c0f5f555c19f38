"""One active line per number (issue 19, finding 15), on SQLite and PostgreSQL: the partial unique index on
the MDN of ACTIVE lines refuses a second active line with a number, and a line given a number by its port
marks the line that held it PORTED_OUT first; retries of a stuck line are claimed once (STUCK → RETRYING), and a
claim left older than the sweep's grace is STUCK again."""

from __future__ import annotations

import asyncio
import secrets

import pytest
from sqlalchemy.exc import IntegrityError

from models.auth import Vendor
from models.enrollment.lines import Enrollment, Line, get_line, holding_line, ported_out
from models.support import claim_retries, release_retries, release_unsent_retries
from models.types import utcnow


async def a_vendor(session) -> int:
    row = Vendor(code=f"V{secrets.token_hex(4).upper()}", name="Numbers Wireless")
    session.add(row)
    await session.flush()
    assert row.id is not None
    return row.id


def a_line(session, vendor_id: int, status: str, mdn: str | None) -> str:
    enrollment_id = f"N{secrets.token_hex(6).upper()}"
    session.add(Enrollment(enrollment_id=enrollment_id, vendor_id=vendor_id, zip_code="30301", state="GA"))
    session.add(
        Line(
            enrollment_id=enrollment_id,
            parent_enrollment_id=enrollment_id,
            order_id=f"order-{enrollment_id}",
            vendor_id=vendor_id,
            plan_id=102,
            activation_type="PORTIN",
            enrollment_type="SHIPMENT",
            email_hash="0" * 64,
            pii="sealed",
            status=status,
            mdn=mdn,
        )
    )
    return enrollment_id


def a_number() -> str:
    return f"404{secrets.randbelow(9_000_000) + 1_000_000}"


async def test_a_second_active_line_with_one_number_is_refused(db):
    number = a_number()
    async with db.transaction() as session:
        vendor = await a_vendor(session)
        a_line(session, vendor, "ACTIVE", number)
        a_line(session, vendor, "PORTED_OUT", number)  # lines no longer active may share it
        a_line(session, vendor, "PORT_PENDING", number)
    with pytest.raises(IntegrityError):
        async with db.transaction() as session:
            a_line(session, vendor, "ACTIVE", number)


async def test_the_line_that_held_a_ported_number_is_marked_ported_out(db):
    number = a_number()
    async with db.transaction() as session:
        mine, theirs = await a_vendor(session), await a_vendor(session)
        holder = a_line(session, theirs, "ACTIVE", number)
        porting = a_line(session, mine, "PORT_PENDING", None)
    async with db.transaction() as session:
        found = await holding_line(session, number, besides=porting)  # any vendor's
        assert found is not None and found.enrollment_id == holder
        assert await holding_line(session, number, besides=holder) is None
        await ported_out(session, number, to=porting)
        line = await get_line(session, porting)
        line.status, line.mdn = "ACTIVE", number
        session.add(line)
    async with db.transaction() as session:
        held = await get_line(session, holder)
        assert (held.status, held.last_error) == ("PORTED_OUT", "Number ported out")
        assert (await get_line(session, porting)).status == "ACTIVE"


async def test_a_stuck_lines_retry_is_claimed_once(db):
    async with db.transaction() as session:
        vendor = await a_vendor(session)
        stuck, active = a_line(session, vendor, "STUCK", None), a_line(session, vendor, "ACTIVE", a_number())
    async with db.transaction() as session:
        assert await claim_retries(session, [stuck, active]) == {stuck}
    async with db.transaction() as session:
        assert await claim_retries(session, [stuck]) == set()  # taken already
        await release_retries(session, [stuck])
    async with db.transaction() as session:
        assert (await get_line(session, stuck)).status == "STUCK"
        assert await claim_retries(session, [stuck]) == {stuck}


async def test_a_claim_whose_signal_never_left_is_stuck_again_once_older_than_the_grace(db):
    async with db.transaction() as session:
        vendor = await a_vendor(session)
        unsent, recent = a_line(session, vendor, "STUCK", None), a_line(session, vendor, "STUCK", None)
    async with db.transaction() as session:
        assert await claim_retries(session, [unsent]) == {unsent}  # then the API died before the signal
    await asyncio.sleep(0.01)
    grace_ends = utcnow()
    await asyncio.sleep(0.01)
    async with db.transaction() as session:
        assert await claim_retries(session, [recent]) == {recent}  # its signal may still be on its way
    async with db.transaction() as session:
        released = await release_unsent_retries(session, grace_ends)
    assert unsent in released and recent not in released
    async with db.transaction() as session:
        assert (await get_line(session, unsent)).status == "STUCK"
        assert (await get_line(session, recent)).status == "RETRYING"
        assert await claim_retries(session, [unsent]) == {unsent}  # support's retry takes it again
