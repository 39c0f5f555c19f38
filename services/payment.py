"""`/payment`: make_payment and payment_details (supporting operations) and update_tax_calculation_status_plum."""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from temporalio.client import WithStartWorkflowOperation, WorkflowUpdateFailedError
from temporalio.common import WorkflowIDConflictPolicy, WorkflowIDReusePolicy

from activities.payment import PaymentActivities
from models.errors import refuse
from models.geography import state_of_zip
from models.messages.payment import (
    CollectTax,
    MarkCollected,
    TaxEstimate,
    TaxEstimateQuery,
    TaxQuote,
    TaxQuoted,
    TaxReceipt,
)
from models.requests.payment import MakePayment, PaymentDetails, UpdateTaxCalculationStatus
from models.statuses import SETTLED_PAYMENTS, PaymentStatus, TaxStatus
from models.tables.enrollment import Enrollment, Plan
from models.tables.payment import Payment, TaxCalculation
from persistence.idempotency import row_for_key
from services.charges import IN_PROGRESS, pay_by_card, record_elsewhere
from services.context import Context
from services.enrollment import NOT_SERVED
from services.lookups import carrier_lookup
from services.temporal import LOOKUP_SECONDS, outside_system
from workflows.ids import lookup_workflow_id, tax_quote_workflow_id, tax_workflow_id
from workflows.payment import TaxCollectionWorkflow, TaxQuoteWorkflow, refusal


async def make_payment(*, body: MakePayment, ctx: Context) -> dict[str, Any]:
    """Registers the order's tax with the carrier, then charges plan price plus tax as a saga (or records a
    payment made elsewhere). A repeated request returns the first result; a declined card may be tried again."""
    caller = ctx.caller
    key = _payment_key(caller.vendor_id, body.external_transaction_id or f"{body.enrollment_id}-{body.plan_id}")
    async with ctx.uow.transaction() as session:
        done: Payment | None = await row_for_key(session, Payment, key)
        slot = await session.get(Enrollment, body.enrollment_id)
        plan = await session.get(Plan, int(body.plan_id))
    if done is not None and done.status in SETTLED_PAYMENTS:
        return _answer(done)
    if done is not None and done.status == PaymentStatus.PENDING:
        raise refuse(IN_PROGRESS, rest_status=409)
    if slot is None or slot.vendor_id != caller.vendor_id:
        raise refuse(f"Invalid enrollment id {body.enrollment_id}. Please provide a valid enrollment ID.")
    if plan is None or not plan.active:
        raise refuse("Plans not found", rest_status=404)
    quote = TaxQuote(key, caller.vendor_code, slot.state, plan.price_cents)
    async with outside_system("The carrier", within=LOOKUP_SECONDS):
        taxed: TaxQuoted = await ctx.temporal.client().execute_workflow(
            TaxQuoteWorkflow.run, quote, id=tax_quote_workflow_id(key), task_queue=ctx.temporal.task_queue
        )
    payment = done or _intent(body, ctx, key=key, plan=plan, taxed=taxed)
    if body.by_card:
        await pay_by_card(ctx, body, payment, retry=done is not None)
    else:
        await record_elsewhere(ctx, body, payment, retry=done is not None)
    # Its TaxCollectionWorkflow starts with the first update_tax_calculation_status_plum.
    return _answer(payment)


def _intent(body: MakePayment, ctx: Context, *, key: str, plan: Plan, taxed: TaxQuoted) -> Payment:
    return Payment(
        idempotency_key=key, vendor_id=ctx.caller.vendor_id, enrollment_id=body.enrollment_id, plan_id=plan.plan_id,
        invoice_number=f"INV{secrets.randbelow(9 * 10**9) + 10**9}", transaction_id="", status=PaymentStatus.PENDING,
        payment_method=body.payment_method, payment_method_option=body.payment_method_option,
        amount_cents=plan.price_cents, tax_cents=taxed.tax_cents, calc_id=taxed.calc_id, coupon_code=body.coupon_code,
        coupon_transaction_id=f"CPN{secrets.randbelow(10**9):09d}" if body.coupon_code else None,
    )  # fmt: skip


async def payment_details(*, body: PaymentDetails, ctx: Context) -> dict[str, Any]:
    """What make_payment would charge for the plan where the customer lives: the same carrier tax, by name.
    Coupons are recorded by make_payment but discount nothing, so a coupon code changes no figure here."""
    async with ctx.uow.transaction() as session:
        plan = await session.get(Plan, int(body.plan_id))
        slot = await session.get(Enrollment, body.enrollment_id) if body.zip_code is None else None
    if plan is None or not plan.active:
        raise refuse("Plans not found", rest_status=404)
    state = _state_of(body, slot, ctx)
    quote = TaxEstimateQuery(ctx.caller.vendor_code, state, plan.price_cents)
    estimate = await carrier_lookup(
        ctx, PaymentActivities.tax_estimate, quote, workflow_id=lookup_workflow_id("taxestimate", ctx.request_id),
        answer=TaxEstimate,
    )  # fmt: skip
    breakup = [{"tax_name": item.name, "tax_amount": _money(item.cents)} for item in estimate.items]
    return {
        "state": state, "total_actual_amount": _money(plan.price_cents), "total_tax": _money(estimate.tax_cents),
        "total_amount": _money(plan.price_cents + estimate.tax_cents),
        "plan": {
            "plan_id": str(plan.plan_id), "plan_name": plan.name, "plan_price": _money(plan.price_cents),
            "tax_breakup": breakup,
        },
    }  # fmt: skip


def _state_of(body: PaymentDetails, slot: Enrollment | None, ctx: Context) -> str:
    """The state taxes are due in: the ZIP's, or the enrollment id's (the vendor's own only)."""
    if body.zip_code is not None:
        if (state := state_of_zip(body.zip_code)) is None:
            raise refuse(NOT_SERVED)
        return state
    if slot is None or slot.vendor_id != ctx.caller.vendor_id:
        raise refuse(f"Invalid enrollment id {body.enrollment_id}. Please provide a valid enrollment ID.")
    return slot.state


async def update_tax_calculation_status_plum(*, body: UpdateTaxCalculationStatus, ctx: Context) -> dict[str, str]:
    """Marks the calculation collected through its workflow's update (the validator refuses a bad move),
    starting the workflow if it is not running. A final calculation is answered from the database."""
    async with ctx.uow.transaction() as session:
        calc = await session.get(TaxCalculation, body.calc_id)
    if calc is None or calc.vendor_id != ctx.caller.vendor_id:
        raise refuse("Calculation not found", rest_status=404)
    mark = MarkCollected(body.iccid, body.status)
    receipt = TaxReceipt(calc.calc_id, TaxStatus(calc.status), calc.reference_number)
    if receipt.status == TaxStatus.COLLECTED_FINAL:
        if problem := refusal(calc.calc_id, mark, receipt):
            raise refuse(problem, rest_status=409)
    else:
        receipt = await _collect(
            ctx, mark, CollectTax(calc.calc_id, ctx.caller.vendor_code, ctx.settings.payment.tax_idle_days)
        )
    return {
        "STATUSCODE": "00", "DESCRIPTION": receipt.description or "Tax collected", "CALCID": receipt.calc_id,
        "REFERENCENUMBER": receipt.reference_number or "",
    }  # fmt: skip


async def _collect(ctx: Context, mark: MarkCollected, collect: CollectTax) -> TaxReceipt:
    start = WithStartWorkflowOperation(
        TaxCollectionWorkflow.run, collect, id=tax_workflow_id(collect.calc_id), task_queue=ctx.temporal.task_queue,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        # A run that ended idle (or final, just now) may start again: it loads the calculation's state first.
        id_reuse_policy=WorkflowIDReusePolicy.ALLOW_DUPLICATE,
    )  # fmt: skip
    try:
        async with outside_system("The carrier", within=LOOKUP_SECONDS):
            return await ctx.temporal.client().execute_update_with_start_workflow(
                TaxCollectionWorkflow.mark_collected, mark, start_workflow_operation=start
            )
    except WorkflowUpdateFailedError as failure:
        raise refuse(str(getattr(failure.cause, "message", failure.cause)), rest_status=409) from None


def _money(cents: int) -> str:
    return f"{cents / 100:.2f}"


def _payment_key(vendor_id: int, reference: str) -> str:
    return hashlib.sha256(f"{vendor_id}:{reference}".encode()).hexdigest()[:32]


def _answer(payment: Payment) -> dict[str, Any]:
    """Lineup's fields and the original's (order_id, payment_status, total_amount, plan_tax, transaction_no)."""
    tax, total = _money(payment.tax_cents), _money(payment.amount_cents + payment.tax_cents)
    answer: dict[str, Any] = {
        "invoice_number": payment.invoice_number, "transaction_id": payment.transaction_id,
        "calc_id": payment.calc_id, "amount": _money(payment.amount_cents), "tax_amount": tax,
        "order_id": str(payment.id), "payment_method": payment.payment_method,
        "payment_status": payment.status,
        "total_amount": total, "plan_tax": tax, "transaction_no": payment.transaction_id,
    }  # fmt: skip
    if payment.coupon_transaction_id:
        answer["coupon_transaction_id"] = payment.coupon_transaction_id
    if payment.card_id is not None:
        answer["card_id"] = str(payment.card_id)
    return answer
