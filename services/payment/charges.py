"""make_payment's money: a card charged as a saga (the payment row is written as the intent, a durable guard
started, the card charged under the attempt's key, the answer recorded), or a payment made elsewhere recorded
as it is. A failure after the gateway approved is settled by the guard, never forgotten."""

from __future__ import annotations

import asyncio
import secrets

from sqlalchemy.exc import IntegrityError
from temporalio.client import WorkflowHandle

from adapters.http import Unavailable
from adapters.payments import Card, Charge
from dispatch.context import Context
from models.errors import refuse, upstream_down
from models.messages.payment import PaymentGuard, charge_key
from models.requests.payment import MakePayment
from models.statuses import PaymentStatus
from models.tables.payment import Payment
from persistence.payment import reference_holder, retry_intent, settle_failed, settle_paid
from workflows.ids import payment_guard_workflow_id
from workflows.payment import PaymentGuardWorkflow

IN_PROGRESS = "This payment is still being completed; ask again in a minute"
REFERENCE_TAKEN = "Payment reference already recorded"


async def pay_by_card(ctx: Context, body: MakePayment, payment: Payment, *, retry: bool) -> Payment:
    """Charges the card for `payment` (a new row, or a declined one tried again with `retry`)."""
    await _record_intent(ctx, body, payment, retry=retry)
    guard = await _start_guard(ctx, payment)
    try:
        key = charge_key(payment.idempotency_key, payment.attempt)
        charge = await ctx.resources.payments.charge(_card(body), payment.amount_cents + payment.tax_cents, key=key)
    except Unavailable:
        # The charge may or may not have been made: the guard asks the gateway and settles the payment.
        raise upstream_down("The payment gateway") from None
    if not charge.approved:
        async with ctx.uow.transaction() as session:
            await settle_failed(session, payment, PaymentStatus.DECLINED)
        await _release(guard, ctx=ctx)
        raise refuse(f"Payment declined: {charge.reason}", rest_status=402)
    await record_approval(ctx, payment, charge)
    await _release(guard, ctx=ctx)
    return payment


async def record_approval(ctx: Context, payment: Payment, charge: Charge) -> None:
    """The gateway approved: the payment, the card to save and the tax calculation, in one transaction."""
    async with ctx.uow.transaction() as session:
        await settle_paid(
            session,
            payment,
            ctx.cipher,
            status=PaymentStatus.APPROVED,
            transaction_id=charge.transaction_id or "",
            card=charge.saved_card(),
        )


async def record_elsewhere(ctx: Context, body: MakePayment, payment: Payment, *, retry: bool) -> Payment:
    """A payment made outside Lineup (OTHER_PAYMENT_OPTION, CASH): recorded with its reference, never charged.
    No money moves here, so the record and its settlement are one transaction: nothing is left pending."""
    await _record_intent(ctx, body, payment, retry=retry, settle_as=reference_of(body, payment))
    return payment


def reference_of(body: MakePayment, payment: Payment | None) -> str:
    """A recorded payment's reference: the processor's as given, or a receipt number for cash without one."""
    return (payment.transaction_id if payment else "") or body.transaction_id or f"CASH{secrets.randbelow(10**12):012d}"


async def _record_intent(
    ctx: Context, body: MakePayment, payment: Payment, *, retry: bool, settle_as: str | None = None
) -> None:
    """The payment, pending, before any money moves; a card to save keeps its expiry and holder on file. With
    `settle_as` (a payment made elsewhere), settled at once as RECORDED under that reference."""
    on_file = ctx.cipher.seal(_card_on_file(body)) if body.by_card and body.save_card == "Y" else None
    try:
        async with ctx.uow.transaction() as session:
            if retry:
                moved = await retry_intent(session, payment, card_on_file=on_file)
            else:
                payment.card_on_file = on_file
                session.add(payment)
                await session.flush()
                moved = True
            if moved and settle_as is not None:
                await settle_paid(session, payment, ctx.cipher, status=PaymentStatus.RECORDED, transaction_id=settle_as)
    except IntegrityError:
        # The same request twice at once (the one that won goes on), or another request that recorded the same
        # processor reference first (the unique index on references).
        async with ctx.uow.transaction() as session:
            holder = await reference_holder(session, payment.vendor_id, settle_as) if settle_as else None
        if holder is not None and holder.idempotency_key != payment.idempotency_key:
            raise refuse(REFERENCE_TAKEN, rest_status=409) from None
        moved = False
    if not moved:
        raise refuse(IN_PROGRESS, rest_status=409)


async def _start_guard(ctx: Context, payment: Payment) -> WorkflowHandle[PaymentGuardWorkflow, str]:
    """The guard starts before the card is charged; without it, nothing is charged."""
    guard = PaymentGuard(payment.idempotency_key, payment.attempt, ctx.settings.payment.guard_seconds)
    try:
        client = await ctx.temporal_client()
        async with ctx.outside("The workflow engine"):
            return await client.start_workflow(
                PaymentGuardWorkflow.run,
                guard,
                id=payment_guard_workflow_id(payment.idempotency_key, payment.attempt),
                task_queue=ctx.task_queue,
            )
    except Exception:
        async with ctx.uow.transaction() as session:
            await settle_failed(session, payment, PaymentStatus.ABANDONED)
        raise


async def _release(guard: WorkflowHandle[PaymentGuardWorkflow, str], *, ctx: Context) -> None:
    """Tells the guard the answer is recorded; if it does not hear, it checks the payment itself later."""
    try:
        async with asyncio.timeout(ctx.settings.temporal.rpc_seconds):
            await guard.signal(PaymentGuardWorkflow.release)
    except Exception:  # noqa: BLE001 — the guard settles from the database either way
        return


def _card(body: MakePayment) -> Card:
    assert body.card_number and body.exp_month and body.exp_year and body.cvv and body.name_on_card and body.zip
    return Card(body.card_number, body.exp_month, body.exp_year, body.cvv, body.name_on_card, body.zip)


def _card_on_file(body: MakePayment) -> dict[str, object]:
    return {
        "exp_month": body.exp_month,
        "exp_year": body.exp_year,
        "holder": {
            "name_on_card": body.name_on_card,
            "address1": body.address1,
            "address2": body.address2 or "",
            "city": body.city,
            "state": body.state,
            "zip": body.zip,
            "country": "US",
        },
    }
