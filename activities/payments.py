"""The payment guard's activities: settle a payment the API charged but did not record (it crashed, or its
write failed), by asking the gateway what became of the charge; and give the charge back when it cannot be
recorded. Neither sees card data: the gateway knows the charge by its idempotency key."""

from __future__ import annotations

from temporalio import activity

from activities.errors import outside_call
from adapters.payments import Charge, PaymentGateway
from models.crypto import FieldCipher
from models.messages.payment import PaymentGuard, charge_key
from models.statuses import PaymentStatus
from models.tables.payment import Payment
from persistence.engine import Database
from persistence.errors import RecordNotFound
from persistence.idempotency import row_for_key
from persistence.payment import settle_failed, settle_paid


class PaymentActivities:
    def __init__(self, gateway: PaymentGateway, db: Database, cipher: FieldCipher) -> None:
        self._gateway, self._db, self._cipher = gateway, db, cipher

    @activity.defn
    async def settle_payment(self, guard: PaymentGuard) -> str:
        """The attempt's status once settled; an attempt the API already settled is left as it is."""
        payment = await self._pending(guard)
        if payment is None:
            return "SETTLED"
        async with outside_call():
            charge = await self._gateway.lookup(charge_key(guard.idempotency_key, guard.attempt))
        return await self._record(payment, charge)

    @activity.defn
    async def void_payment(self, guard: PaymentGuard) -> str:
        """The charge could not be recorded: it is given back, and the payment says so."""
        async with outside_call():
            charge = await self._gateway.void(charge_key(guard.idempotency_key, guard.attempt))
        payment = await self._pending(guard)
        if payment is not None:
            status = PaymentStatus.ABANDONED if charge is None else PaymentStatus.VOIDED
            async with self._db.transaction() as session:
                await settle_failed(session, payment, status)
        activity.logger.warning("payment %s attempt %s given back", guard.idempotency_key, guard.attempt)
        return "VOIDED"

    async def _pending(self, guard: PaymentGuard) -> Payment | None:
        async with self._db.transaction() as session:
            payment: Payment | None = await row_for_key(session, Payment, guard.idempotency_key)
        async with outside_call():
            if payment is None:
                raise RecordNotFound(f"payment {guard.idempotency_key} not found")
        pending = payment.status == PaymentStatus.PENDING and payment.attempt == guard.attempt
        return payment if pending else None

    async def _record(self, payment: Payment, charge: Charge | None) -> str:
        async with self._db.transaction() as session:
            if charge is None:  # the gateway never saw it: no money moved
                await settle_failed(session, payment, PaymentStatus.ABANDONED)
                return PaymentStatus.ABANDONED
            if not charge.approved:
                await settle_failed(session, payment, PaymentStatus.DECLINED)
                return PaymentStatus.DECLINED
            card = {"token": charge.payment_token or "", "brand": charge.brand or "", "last4": charge.last4 or ""}
            await settle_paid(
                session, payment, self._cipher, status=PaymentStatus.APPROVED,
                transaction_id=charge.transaction_id or "", card=card,
            )  # fmt: skip
        return PaymentStatus.APPROVED
