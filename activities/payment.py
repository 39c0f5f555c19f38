"""PaymentActivities. The payment guard's: settle a payment the API charged but did not record (it crashed, or its
write failed) from the gateway's record of the charge, and give the charge back when it cannot be recorded;
neither sees card data (the gateway knows the charge by its idempotency key). The carrier's tax API: register an
order's tax (make_payment), estimate it (payment_details), collect it (update_tax_calculation_status_plum)."""

from __future__ import annotations

from temporalio import activity
from temporalio.exceptions import ApplicationError

from adapters.carrier import CarrierClient
from adapters.http import outside_call
from adapters.payments import PaymentGateway
from models.crypto import FieldCipher
from models.db import Database, RecordNotFound, row_for_key
from models.envelope import NOT_FOUND
from models.payment import (
    PaymentGuard,
    PaymentRecord,
    PaymentStatus,
    TaxCalculation,
    TaxCollect,
    TaxEstimate,
    TaxEstimateQuery,
    TaxQuote,
    TaxQuoted,
    TaxReceipt,
    TaxRegistrationJob,
    TaxState,
    charge_key,
    registered,
    settle_failed,
    settle_paid,
    tax_collected,
    waiting_registration,
)
from models.types import utcnow

CARRIER_STATUS = {"temporary": TaxState.COLLECTED_TEMPORARY, "final": TaxState.COLLECTED_FINAL}


class PaymentActivities:
    def __init__(self, gateway: PaymentGateway, carrier: CarrierClient, db: Database, cipher: FieldCipher) -> None:
        self._gateway, self._carrier, self._db, self._cipher = gateway, carrier, db, cipher

    @activity.defn
    async def settle_payment(self, guard: PaymentGuard) -> str:
        """The attempt's status once settled; an attempt the API already settled is left as it is."""
        pending = await self._pending(guard)
        if pending is None:
            return "SETTLED"
        async with outside_call():
            charge = await self._gateway.lookup(charge_key(guard.idempotency_key, guard.attempt))
        async with self._db.transaction() as session:
            if charge is None:  # the gateway never saw it: no money moved
                await settle_failed(session, pending, PaymentStatus.ABANDONED)
                return PaymentStatus.ABANDONED
            if not charge.approved:
                await settle_failed(session, pending, PaymentStatus.DECLINED)
                return PaymentStatus.DECLINED
            await settle_paid(
                session,
                pending,
                self._cipher,
                status=PaymentStatus.APPROVED,
                transaction_id=charge.transaction_id or "",
                card=charge.saved_card(),
            )
        return PaymentStatus.APPROVED

    @activity.defn
    async def void_payment(self, guard: PaymentGuard) -> str:
        """The charge could not be recorded: it is given back, and the payment says so."""
        async with outside_call():
            charge = await self._gateway.void(charge_key(guard.idempotency_key, guard.attempt))
        pending = await self._pending(guard)
        if pending is not None:
            status = PaymentStatus.ABANDONED if charge is None else PaymentStatus.VOIDED
            async with self._db.transaction() as session:
                await settle_failed(session, pending, status)
        activity.logger.warning("payment %s attempt %s given back", guard.idempotency_key, guard.attempt)
        return "VOIDED"

    @activity.defn
    async def register_tax(self, quote: TaxQuote) -> TaxQuoted:
        async with outside_call():
            return await self._carrier.register_tax(
                quote.vendor_code, quote.state, quote.amount_cents, key=quote.idempotency_key
            )

    @activity.defn
    async def tax_estimate(self, query: TaxEstimateQuery) -> TaxEstimate:
        async with outside_call():
            return await self._carrier.tax_quote(query.vendor_code, query.state, query.amount_cents)

    @activity.defn
    async def register_held_tax(self, job: TaxRegistrationJob) -> str:
        """A calculation quoted from held rates, registered at the carrier (once: the payment's key); its id."""
        return await self._carrier_calc_id(job.calc_id)

    @activity.defn
    async def load_tax(self, calc_id: str) -> TaxReceipt:
        async with self._db.transaction(write=False) as session:
            calc = await session.get(TaxCalculation, calc_id)
        if calc is None:
            raise RecordNotFound(f"tax calculation {calc_id} not found")
        return TaxReceipt(calc_id, TaxState(calc.status), calc.reference_number)

    @activity.defn
    async def collect_tax(self, collect: TaxCollect) -> TaxReceipt:
        """Collected at the carrier under the carrier's id for it: a calculation quoted from held rates is
        registered first if the carrier has not taken it yet (the channel's calc id is Lineup's then)."""
        carrier_calc_id = await self._carrier_calc_id(collect.calc_id)
        async with outside_call():
            reference, words = await self._carrier.collect_tax(
                collect.vendor_code, carrier_calc_id, collect.iccid, collect.status, key=collect.key or None
            )
        return TaxReceipt(collect.calc_id, CARRIER_STATUS[collect.status], reference, words)

    @activity.defn
    async def record_tax(self, receipt: TaxReceipt, iccid: str) -> None:
        async with self._db.transaction() as session:
            calc = await session.get(TaxCalculation, receipt.calc_id)
            if calc is None:
                raise RecordNotFound(f"tax calculation {receipt.calc_id} not found")
            await tax_collected(session, calc, receipt.status)
            calc.status, calc.reference_number, calc.iccid = receipt.status, receipt.reference_number, iccid
            calc.updated_at = utcnow()
            session.add(calc)

    async def _pending(self, guard: PaymentGuard) -> PaymentRecord | None:
        """The guarded attempt while it is pending; a payment that is missing cannot appear by retrying."""
        async with self._db.transaction(write=False) as session:
            found: PaymentRecord | None = await row_for_key(session, PaymentRecord, guard.idempotency_key)
        if found is None:
            raise ApplicationError(f"payment {guard.idempotency_key} not found", type=NOT_FOUND, non_retryable=True)
        return found if found.status == PaymentStatus.PENDING and found.attempt == guard.attempt else None

    async def _carrier_calc_id(self, calc_id: str) -> str:
        async with self._db.transaction(write=False) as session:
            found = await waiting_registration(session, calc_id)
        if found is None:
            return calc_id  # registered by the carrier when it was paid: the id is the carrier's
        waiting, vendor_code = found
        if waiting.carrier_calc_id is not None:
            return waiting.carrier_calc_id
        async with outside_call():
            taken = await self._carrier.register_tax(
                vendor_code, waiting.state, waiting.amount_cents, key=waiting.idempotency_key
            )
        async with self._db.transaction() as session:
            await registered(session, calc_id, carrier_calc_id=taken.calc_id, carrier_tax_cents=taken.tax_cents)
        if taken.tax_cents != waiting.tax_cents:  # the rates changed during the outage: the payment keeps its tax
            activity.logger.warning(
                "tax calculation %s registered with %s cents of tax, %s charged",
                calc_id,
                taken.tax_cents,
                waiting.tax_cents,
            )
        return taken.calc_id
