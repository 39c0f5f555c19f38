"""PaymentActivities with ActivityEnvironment against the sandbox's gateway: a charge the API never recorded
is settled from the gateway's record, and one that cannot be recorded is given back."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlmodel import select
from temporalio.testing import ActivityEnvironment

from activities.payment import PaymentActivities
from adapters.carrier import CarrierClient
from adapters.payments import Card, PaymentGateway
from models.auth import Vendor
from models.crypto import cipher_for
from models.db import Database
from models.enrollment.lines import Enrollment
from models.payment import PaymentGuard, PaymentRecord, charge_key


@pytest.fixture
def settings_overrides(sandbox_url: str) -> dict[str, Any]:
    return {"payments_base_url": f"{sandbox_url}/payments"}


@pytest.fixture
async def parts(settings: Any) -> AsyncIterator[tuple[PaymentActivities, PaymentGateway, Database]]:
    db, gateway = Database(settings), PaymentGateway(settings.systems.payments_url)
    carrier = CarrierClient(settings.systems.carrier_url)
    yield PaymentActivities(gateway, carrier, db, cipher_for(settings)), gateway, db
    await carrier.close()
    await gateway.close()
    await db.dispose()


async def pending_payment(db: Database) -> PaymentRecord:
    """A payment whose intent the API wrote before charging."""
    key = secrets.token_hex(16)
    async with db.transaction() as session:
        vendor = (await session.exec(select(Vendor).where(Vendor.code == "DEMO"))).one()
        assert vendor.id is not None
        session.add(Enrollment(enrollment_id=f"E{key[:10].upper()}", vendor_id=vendor.id, zip_code="30301", state="GA"))
        await session.flush()
        payment = PaymentRecord(
            idempotency_key=key,
            vendor_id=vendor.id,
            enrollment_id=f"E{key[:10].upper()}",
            plan_id=102,
            invoice_number=f"INV{key[:12]}",
            transaction_id="",
            amount_cents=2500,
            tax_cents=100,
            calc_id=None,
        )
        session.add(payment)
    return payment


async def status_of(db: Database, payment: PaymentRecord) -> PaymentRecord:
    async with db.transaction() as session:
        found: PaymentRecord = (await session.exec(select(PaymentRecord).where(PaymentRecord.id == payment.id))).one()
        return found


async def test_settle_records_a_charge_the_gateway_approved(parts):
    activities, gateway, db = parts
    payment = await pending_payment(db)
    card = Card("4111111111111111", "12", "2030", "123", "Pat Lee", "30301")
    charge = await gateway.charge(card, 2600, key=charge_key(payment.idempotency_key, 0))
    guard = PaymentGuard(payment.idempotency_key, 0)
    assert await ActivityEnvironment().run(activities.settle_payment, guard) == "APPROVED"
    assert await ActivityEnvironment().run(activities.settle_payment, guard) == "SETTLED"  # once only
    stored = await status_of(db, payment)
    assert (stored.status, stored.transaction_id) == ("APPROVED", charge.transaction_id)


async def test_settle_abandons_a_charge_the_gateway_never_saw(parts):
    activities, _, db = parts
    payment = await pending_payment(db)
    assert (
        await ActivityEnvironment().run(activities.settle_payment, PaymentGuard(payment.idempotency_key, 0))
        == "ABANDONED"
    )
    assert (await status_of(db, payment)).status == "ABANDONED"


async def test_void_gives_the_charge_back(parts):
    activities, gateway, db = parts
    payment = await pending_payment(db)
    key = charge_key(payment.idempotency_key, 0)
    await gateway.charge(Card("4111111111111111", "12", "2030", "123", "Pat Lee", "30301"), 2600, key=key)
    assert (
        await ActivityEnvironment().run(activities.void_payment, PaymentGuard(payment.idempotency_key, 0)) == "VOIDED"
    )
    looked_up = await gateway.lookup(key)
    assert looked_up is not None and (looked_up.approved, looked_up.reason) == (False, "voided")
    assert (await status_of(db, payment)).status == "VOIDED"
