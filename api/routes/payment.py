"""`/payment`: make_payment (update_tax_calculation_status_plum arrives with the tax issue)."""

from __future__ import annotations

import hashlib
import secrets
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Request
from fastapi.responses import JSONResponse
from sqlmodel import select
from temporalio.client import WithStartWorkflowOperation, WorkflowUpdateFailedError
from temporalio.common import WorkflowIDConflictPolicy, WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError

from activities.adapters.http import Unavailable
from activities.adapters.payments import Card
from api.deps import GatewayDep, LinesDep, SessionsDep, TemporalDep
from api.envelope import success
from api.errors import refuse, upstream_down
from api.gate import Caller, gate
from api.workflows import outside_system
from models.db import transaction
from models.envelope import Envelope
from models.messages import TaxQuote, TaxQuoted
from models.long_running import CollectTax, MarkCollected, TaxReceipt
from models.requests.payment import MakePayment, PaymentAction, UpdateTaxCalculationStatus
from models.tables.catalog import Plan
from models.tables.enrollment import Enrollment
from models.tables.payment import Payment, SavedCard, TaxCalculation
from workflows.ids import tax_quote_workflow_id, tax_workflow_id
from workflows.lookups import TaxQuoteWorkflow
from workflows.tax_collection import TaxCollectionWorkflow, refusal

router = APIRouter(tags=["payment"])
PaymentBody = Annotated[PaymentAction, Body(discriminator="action")]
PaymentCaller = Annotated[Caller, Depends(gate("payment"))]


@router.post("/payment", response_model=Envelope)
async def payment(
    request: Request, body: PaymentBody, caller: PaymentCaller, sessions: SessionsDep, temporal: TemporalDep,
    gateway: GatewayDep, lines: LinesDep,
) -> JSONResponse:  # fmt: skip
    """Payments and tax collection."""
    match body:
        case MakePayment():
            reference = body.external_transaction_id
            return success(request, await make_payment(body, caller, reference, sessions, temporal, gateway, lines, request))
        case UpdateTaxCalculationStatus():
            return success(request, await update_tax_calculation_status_plum(body, caller, sessions, temporal, request))


async def make_payment(
    body: MakePayment, caller: Caller, transaction_id: str | None, sessions: SessionsDep, temporal: TemporalDep,
    gateway: GatewayDep, lines: LinesDep, request: Request,
) -> dict[str, Any]:  # fmt: skip
    """Registers the order's tax with the carrier, charges plan price plus tax, stores the payment (and,
    with save_card Y, the card as the gateway returned it). A repeated request returns the first result."""
    key = _payment_key(caller.vendor_id, transaction_id or f"{body.enrollment_id}-{body.plan_id}")
    async with sessions() as session:
        done = (await session.exec(select(Payment).where(Payment.idempotency_key == key))).first()
        slot = await session.get(Enrollment, body.enrollment_id)
        plan = await session.get(Plan, int(body.plan_id))
    if done is not None:
        return _answer(done)
    if slot is None or slot.vendor_id != caller.vendor_id:
        raise refuse(f"Invalid enrollment id {body.enrollment_id}. Please provide a valid enrollment ID.")
    if plan is None or not plan.active:
        raise refuse("Plans not found", rest_status=404)
    quote = TaxQuote(key, caller.vendor_code, slot.state, plan.price_cents)
    async with outside_system("The carrier"):
        taxed: TaxQuoted = await temporal.require().execute_workflow(
            TaxQuoteWorkflow.run, quote, id=tax_quote_workflow_id(key),
            task_queue=request.app.state.settings.temporal_task_queue,
        )  # fmt: skip
    card = Card(body.card_number, body.exp_month, body.exp_year, body.cvv, body.name_on_card, body.zip)
    try:
        charge = await gateway.charge(card, plan.price_cents + taxed.tax_cents, key=f"charge-{key}")
    except Unavailable:
        raise upstream_down("The payment gateway") from None
    if not charge.approved:
        raise refuse(f"Payment declined: {charge.reason}", rest_status=402)
    record = Payment(
        idempotency_key=key, vendor_id=caller.vendor_id, enrollment_id=body.enrollment_id, plan_id=plan.plan_id,
        invoice_number=f"INV{secrets.randbelow(9 * 10**9) + 10**9}", transaction_id=charge.transaction_id or "",
        amount_cents=plan.price_cents, tax_cents=taxed.tax_cents, calc_id=taxed.calc_id,
        coupon_code=body.coupon_code,
        coupon_transaction_id=f"CPN{secrets.randbelow(10**9):09d}" if body.coupon_code else None,
    )  # fmt: skip
    async with transaction(sessions) as session:
        if body.save_card == "Y":
            saved = SavedCard(
                vendor_id=caller.vendor_id, enrollment_id=body.enrollment_id,
                payment_token=lines.cipher.encrypt(charge.payment_token or ""), brand=charge.brand or "Card",
                last4=charge.last4 or body.card_number[-4:], exp_month=body.exp_month, exp_year=body.exp_year,
                holder=lines.seal(_holder(body)),
            )  # fmt: skip
            session.add(saved)
            await session.flush()
            record.card_id = saved.id
        session.add(record)
        session.add(
            TaxCalculation(
                calc_id=taxed.calc_id, vendor_id=caller.vendor_id, invoice_number=record.invoice_number,
                state=slot.state, amount_cents=plan.price_cents, tax_cents=taxed.tax_cents,
            )
        )  # fmt: skip
    async with outside_system("The workflow engine"):
        await temporal.require().start_workflow(
            TaxCollectionWorkflow.run, CollectTax(taxed.calc_id, caller.vendor_code), **_tax_workflow(taxed.calc_id, request)
        )
    return _answer(record)


def _tax_workflow(calc_id: str, request: Request) -> dict[str, Any]:
    return {
        "id": tax_workflow_id(calc_id), "task_queue": request.app.state.settings.temporal_task_queue,
        "id_conflict_policy": WorkflowIDConflictPolicy.USE_EXISTING,
        # A finished calculation is never collected again: a repeat is answered from the database.
        "id_reuse_policy": WorkflowIDReusePolicy.REJECT_DUPLICATE,
    }  # fmt: skip


async def update_tax_calculation_status_plum(
    body: UpdateTaxCalculationStatus, caller: Caller, sessions: SessionsDep, temporal: TemporalDep, request: Request
) -> dict[str, str]:
    """Marks the calculation collected through its workflow's update (the validator refuses a bad move)."""
    async with sessions() as session:
        calc = await session.get(TaxCalculation, body.calc_id)
    if calc is None or calc.vendor_id != caller.vendor_id:
        raise refuse("Calculation not found", rest_status=404)
    start = WithStartWorkflowOperation(
        TaxCollectionWorkflow.run, CollectTax(body.calc_id, caller.vendor_code), **_tax_workflow(body.calc_id, request)
    )
    try:
        async with outside_system("The carrier"):
            receipt = await temporal.require().execute_update_with_start_workflow(
                TaxCollectionWorkflow.mark_collected, MarkCollected(body.iccid, body.status), start_workflow_operation=start
            )
    except WorkflowUpdateFailedError as failure:
        raise refuse(str(getattr(failure.cause, "message", failure.cause)), rest_status=409) from None
    except WorkflowAlreadyStartedError:  # closed after `final`: the stored result answers
        receipt = TaxReceipt(calc.calc_id, calc.status, calc.reference_number)
        if problem := refusal(calc.calc_id, MarkCollected(body.iccid, body.status), receipt):
            raise refuse(problem, rest_status=409) from None
    return {
        "STATUSCODE": "00", "DESCRIPTION": receipt.description or "Tax collected", "CALCID": receipt.calc_id,
        "REFERENCENUMBER": receipt.reference_number or "",
    }  # fmt: skip


def _payment_key(vendor_id: int, reference: str) -> str:
    return hashlib.sha256(f"{vendor_id}:{reference}".encode()).hexdigest()[:32]


def _holder(body: MakePayment) -> dict[str, Any]:
    return {
        "name_on_card": body.name_on_card, "address1": body.address1, "address2": body.address2 or "",
        "city": body.city, "state": body.state, "zip": body.zip, "country": "US",
    }  # fmt: skip


def _answer(payment: Payment) -> dict[str, Any]:
    answer: dict[str, Any] = {
        "invoice_number": payment.invoice_number, "transaction_id": payment.transaction_id,
        "calc_id": payment.calc_id, "amount": f"{payment.amount_cents / 100:.2f}",
        "tax_amount": f"{payment.tax_cents / 100:.2f}",
    }  # fmt: skip
    if payment.coupon_transaction_id:
        answer["coupon_transaction_id"] = payment.coupon_transaction_id
    if payment.card_id is not None:
        answer["card_id"] = str(payment.card_id)
    return answer
