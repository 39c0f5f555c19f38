"""The payment domain's money in: make_payment (registers the order's tax, then charges the card as a saga, or
records a payment made elsewhere) and payment_details (what make_payment would charge, to the cent)."""

from __future__ import annotations

import hashlib
import secrets

from dispatch.actions import action
from dispatch.context import Context
from models.answers.payment import DETAILS, PAYMENT, Payment, PaymentDetailsData
from models.envelope import MsgCode
from models.errors import LineupError, refuse
from models.geography import state_of_zip
from models.messages.payment import TaxEstimateQuery, TaxQuote, TaxQuoted
from models.plans import as_text
from models.refusals import PLANS_NOT_FOUND, invalid_enrollment_id
from models.requests.payment import MakePayment, PaymentDetails
from models.statuses import SETTLED_PAYMENTS, PaymentStatus
from models.tables.enrollment import Enrollment
from models.tables.payment import Payment as PaymentRow
from persistence.idempotency import row_for_key
from persistence.payment import active_plans, reference_holder
from services.enrollment.catalog import NOT_SERVED
from services.payment.charges import IN_PROGRESS, REFERENCE_TAKEN, pay_by_card, record_elsewhere, reference_of
from services.payment.held_rates import estimate, quote
from services.payment.pricing import detailed_plans, money, plan_key, price_cents

SUCCESS = "SUCCESS"
RECORDING_ROLE = "payments"  # money no gateway saw, recorded by the agents a vendor trusts with it (decisions.md)
NEEDS_ROLE = f"Recording a CASH or OTHER_PAYMENT_OPTION payment needs the {RECORDING_ROLE} role"


@action("payment", example=PAYMENT)
async def make_payment(*, body: MakePayment, ctx: Context) -> Payment:
    """Pays plans' prices plus tax (`plan_id` one plan or a list, each for its months): by card (the CVV goes to
    the gateway and nowhere else), or recorded as paid elsewhere (OTHER_PAYMENT_OPTION with the processor's
    reference, or CASH; either needs the payments role). A repeated request returns the first result; a declined
    card may be tried again; a processor reference is recorded once per vendor."""
    caller = ctx.caller
    if body.recorded and (caller.agent is None or RECORDING_ROLE not in caller.agent.roles):
        raise LineupError(MsgCode.UNAUTHORIZED, "Unauthorized Access", [NEEDS_ROLE])
    key = _payment_key(caller.vendor_id, body.external_transaction_id or f"{body.enrollment_id}-{plan_key(body)}")
    async with ctx.uow.transaction() as session:
        done = await row_for_key(session, PaymentRow, key)
        slot = await session.get(Enrollment, body.enrollment_id)
        plans = await active_plans(session, body.plan_id)
        holder = await reference_holder(session, caller.vendor_id, body.transaction_id) if body.transaction_id else None
    if done is not None and done.status in SETTLED_PAYMENTS:
        return answer(done)
    if done is not None and done.status == PaymentStatus.PENDING:
        raise refuse(IN_PROGRESS, rest_status=409)
    if slot is None or slot.vendor_id != caller.vendor_id:
        raise refuse(invalid_enrollment_id(body.enrollment_id))
    if plans is None:
        raise refuse(PLANS_NOT_FOUND, rest_status=404)
    if holder is not None and (done is None or holder.id != done.id):
        raise refuse(REFERENCE_TAKEN, rest_status=409)
    price = price_cents(body.plan_id, plans)
    if done is None:
        budget = ctx.settings.systems.lookup_budget_seconds
        ask = TaxQuote(key, caller.vendor_code, slot.state, price, budget_seconds=budget)
        # A repeated payment waits for the registration its first request started (the carrier's key makes a new
        # run register the same calculation once the first one has ended); with the carrier down, it is quoted
        # from the rates Lineup holds and registered when the carrier is back (held_rates).
        payment = _intent(body, ctx, key=key, price=price, taxed=await quote(ctx, ask, body.plan_id, plans))
    else:
        payment = done  # a declined card tried again: its calculation is the first attempt's
    if body.by_card:
        await pay_by_card(ctx, body, payment, retry=done is not None)
    else:
        await record_elsewhere(ctx, body, payment, retry=done is not None)
    # Its TaxCollectionWorkflow starts with the first update_tax_calculation_status_plum.
    return answer(payment)


def _intent(body: MakePayment, ctx: Context, *, key: str, price: int, taxed: TaxQuoted) -> PaymentRow:
    # A payment made elsewhere carries its reference from the start: the unique index refuses a second record
    # of it before anything is written (a card's reference is the gateway's, known once it answers).
    reference = reference_of(body, None) if body.recorded else ""
    return PaymentRow(
        idempotency_key=key,
        vendor_id=ctx.caller.vendor_id,
        enrollment_id=body.enrollment_id,
        plan_id=body.plan_id[0].plan_id,
        plans=as_text(body.plan_id),
        invoice_number=f"INV{secrets.randbelow(9 * 10**9) + 10**9}",
        transaction_id=reference,
        status=PaymentStatus.PENDING,
        payment_method=body.payment_method,
        payment_method_option=body.payment_method_option,
        amount_cents=price,
        tax_cents=taxed.tax_cents,
        calc_id=taxed.calc_id,
        coupon_code=body.coupon_code,
        coupon_transaction_id=f"CPN{secrets.randbelow(10**9):09d}" if body.coupon_code else None,
    )


@action("payment", example=DETAILS)
async def payment_details(*, body: PaymentDetails, ctx: Context) -> PaymentDetailsData:
    """What make_payment would charge for plans (one or a list, each for its months) where the customer lives (a
    ZIP, or an enrollment id's): prices, the same carrier tax by name, total. Coupons are recorded by
    make_payment but discount nothing, so a coupon code changes no figure here."""
    async with ctx.uow.transaction() as session:
        plans = await active_plans(session, body.plan_id)
        slot = await session.get(Enrollment, body.enrollment_id) if body.zip_code is None else None
    if plans is None:
        raise refuse(PLANS_NOT_FOUND, rest_status=404)
    state = _state_of(body, slot, ctx)
    price = price_cents(body.plan_id, plans)
    query = TaxEstimateQuery(
        ctx.caller.vendor_code, state, price, budget_seconds=ctx.settings.systems.lookup_budget_seconds
    )
    figures = await estimate(ctx, query, body.plan_id, plans)
    detailed = detailed_plans(body.plan_id, plans, figures)
    return PaymentDetailsData(
        state=state,
        total_actual_amount=money(price),
        total_tax=money(figures.tax_cents),
        total_amount=money(price + figures.tax_cents),
        plan=detailed[0] if len(detailed) == 1 else None,
        plans=detailed if len(detailed) > 1 else None,
    )


def _state_of(body: PaymentDetails, slot: Enrollment | None, ctx: Context) -> str:
    """The state taxes are due in: the ZIP's, or the enrollment id's (the vendor's own only)."""
    if body.zip_code is not None:
        if (state := state_of_zip(body.zip_code)) is None:
            raise refuse(NOT_SERVED)
        return state
    if slot is None or slot.vendor_id != ctx.caller.vendor_id:
        raise refuse(invalid_enrollment_id(body.enrollment_id))
    return slot.state


def _payment_key(vendor_id: int, reference: str) -> str:
    return hashlib.sha256(f"{vendor_id}:{reference}".encode()).hexdigest()[:32]


def answer(payment: PaymentRow) -> Payment:
    """Lineup's fields and the original's (order_id, payment_status, total_amount, plan_tax, transaction_no)."""
    tax, total = money(payment.tax_cents), money(payment.amount_cents + payment.tax_cents)
    return Payment(
        invoice_number=payment.invoice_number,
        transaction_id=payment.transaction_id,
        calc_id=payment.calc_id,
        amount=money(payment.amount_cents),
        tax_amount=tax,
        order_id=str(payment.id),
        payment_method=payment.payment_method,
        payment_status=SUCCESS,  # the original's word for every settled payment; `settlement` says how
        settlement=payment.status,
        total_amount=total,
        plan_tax=tax,
        transaction_no=payment.transaction_id,
        coupon_transaction_id=payment.coupon_transaction_id,
        card_id=str(payment.card_id) if payment.card_id is not None else None,
    )
