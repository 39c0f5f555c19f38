"""The payment domain's actions. make_payment registers the order's tax at the carrier (with the carrier down:
quoted from the rates Lineup holds, registered once it is back), then charges the card as a saga (the payment
row written as the intent, a durable guard started, the card charged under the attempt's key, the answer
recorded; a failure after the gateway approved is settled by the guard, never forgotten), or records a payment
made elsewhere as it is. payment_details gives the same figures, registering nothing;
update_tax_calculation_status_plum collects a calculation through its TaxCollectionWorkflow."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
import time
import weakref
from collections.abc import Awaitable, Callable
from fractions import Fraction

from temporalio.client import WithStartWorkflowOperation, WorkflowHandle, WorkflowUpdateFailedError
from temporalio.common import WorkflowIDConflictPolicy, WorkflowIDReusePolicy
from temporalio.exceptions import ActivityError, ApplicationError

from adapters.http import Unavailable
from adapters.payments import Card, Charge
from api.dispatch import Context, action, lookup_workflow_id, run_lookup
from api.enrollment import NOT_SERVED
from api.temporal import TemporalLink, started_anyway
from models.address import state_of_zip
from models.db import row_for_key
from models.enrollment.lines import Enrollment, Plan
from models.envelope import (
    CARRIER_REJECTED,
    PLANS_NOT_FOUND,
    LineupError,
    MsgCode,
    invalid_enrollment_id,
    refuse,
    upstream_down,
)
from models.payment import (
    DETAILS,
    PAYMENT,
    REFERENCE_TAKEN,
    SETTLED_PAYMENTS,
    TAX_STATUS,
    CollectTax,
    DetailedPlan,
    MakePayment,
    MarkCollected,
    Payment,
    PaymentDetails,
    PaymentDetailsData,
    PaymentGuard,
    PaymentRecord,
    PaymentStatus,
    PlanUnit,
    TaxCalculation,
    TaxEstimate,
    TaxEstimateQuery,
    TaxItem,
    TaxLine,
    TaxQuote,
    TaxQuoted,
    TaxRate,
    TaxReceipt,
    TaxRegistration,
    TaxRegistrationJob,
    TaxState,
    TaxStatus,
    UpdateTaxCalculationStatus,
    active_plans,
    add_registration,
    as_text,
    charge_key,
    held,
    hold,
    items_of,
    record_intent,
    reference_holder,
    settle_failed,
    settle_paid,
)
from models.payment import IN_PROGRESS as IN_PROGRESS  # make_payment's refusal of a payment under way
from workflows.payment import (
    PaymentGuardWorkflow,
    TaxCollectionWorkflow,
    TaxEstimateWorkflow,
    TaxQuoteWorkflow,
    TaxRegistrationWorkflow,
    payment_guard_workflow_id,
    refusal,
    tax_quote_workflow_id,
    tax_registration_workflow_id,
    tax_workflow_id,
)

log = logging.getLogger("lineup.payment")

UPSTREAM_DOWN = (502, 504)  # models.envelope.upstream_down's statuses: the system (or Temporal) did not answer
PRECISION = 10_000  # an item's share of the tax is weighed to 1/10,000 of a cent
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
    reference = body.external_transaction_id or f"{body.enrollment_id}-{plan_key(body)}"
    key = hashlib.sha256(f"{caller.vendor_id}:{reference}".encode()).hexdigest()[:32]
    async with ctx.uow.transaction() as session:
        done = await row_for_key(session, PaymentRecord, key)
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
        ask = TaxQuote(caller.vendor_code, slot.state, price, idempotency_key=key, budget_seconds=budget)
        # A repeated payment waits for the registration its first request started (the carrier's key makes a new
        # run register the same calculation once the first one has ended); with the carrier down, it is quoted
        # from the rates Lineup holds and registered when the carrier is back.
        payment = _intent(body, ctx, key=key, price=price, taxed=await _quote(ctx, ask, body.plan_id, plans))
    else:
        payment = done  # a declined card tried again: its calculation is the first attempt's
    if body.by_card:
        await pay_by_card(ctx, body, payment, retry=done is not None)
    else:  # made elsewhere: no money moves here, so the record and its settlement are one transaction
        settle_as = reference_of(body, payment)
        await record_intent(ctx.uow, payment, ctx.cipher, retry=done is not None, settle_as=settle_as)
    # Its TaxCollectionWorkflow starts with the first update_tax_calculation_status_plum.
    return answer(payment)


@action("payment", example=DETAILS, reads_only=True)
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
    budget = ctx.settings.systems.lookup_budget_seconds
    query = TaxEstimateQuery(ctx.caller.vendor_code, state, price, budget_seconds=budget)
    workflow_id = lookup_workflow_id("taxestimate", ctx.request_id)

    def estimated() -> Awaitable[TaxEstimate]:
        return run_lookup(ctx, TaxEstimateWorkflow.run, query, workflow_id=workflow_id)

    figures = await _carrier_or_held(ctx, estimated, state, body.plan_id, plans)
    detailed = detailed_plans(body.plan_id, plans, figures)
    return PaymentDetailsData(
        state=state,
        total_actual_amount=money(price),
        total_tax=money(figures.tax_cents),
        total_amount=money(price + figures.tax_cents),
        plan=detailed[0] if len(detailed) == 1 else None,
        plans=detailed if len(detailed) > 1 else None,
    )


@action("payment", interface=True, example=TAX_STATUS)
async def update_tax_calculation_status_plum(*, body: UpdateTaxCalculationStatus, ctx: Context) -> TaxStatus:
    """Marks a tax calculation collected: `temporary` (provisional) or `final` (closes it), through its
    workflow's update, whose validator refuses a bad move; a final calculation is answered from the database."""
    async with ctx.uow.transaction() as session:
        calc = await session.get(TaxCalculation, body.calc_id)
    if calc is None or calc.vendor_id != ctx.caller.vendor_id:
        raise refuse("Calculation not found", rest_status=404)
    mark = MarkCollected(body.iccid, body.status, budget_seconds=ctx.settings.systems.lookup_budget_seconds)
    receipt = TaxReceipt(calc.calc_id, TaxState(calc.status), calc.reference_number)
    if receipt.status == TaxState.COLLECTED_FINAL:
        if problem := refusal(calc.calc_id, mark, receipt):
            raise refuse(problem, rest_status=409)
    else:
        receipt = await _collect(ctx, calc.calc_id, mark)
    return TaxStatus(
        STATUSCODE="00",
        DESCRIPTION=receipt.description or "Tax collected",
        CALCID=receipt.calc_id,
        REFERENCENUMBER=receipt.reference_number or "",
    )


async def pay_by_card(ctx: Context, body: MakePayment, payment: PaymentRecord, *, retry: bool) -> None:
    """Charges the card for `payment` (a new row, or a declined one tried again with `retry`); a card to save
    keeps its expiry and holder on file."""
    assert body.card_number and body.exp_month and body.exp_year and body.cvv and body.name_on_card and body.zip
    card = Card(body.card_number, body.exp_month, body.exp_year, body.cvv, body.name_on_card, body.zip)
    on_file = ctx.cipher.seal(_card_on_file(body)) if body.save_card == "Y" else None
    await record_intent(ctx.uow, payment, ctx.cipher, retry=retry, card_on_file=on_file)
    guard = await _start_guard(ctx, payment)
    try:
        key = charge_key(payment.idempotency_key, payment.attempt)
        charge = await ctx.resources.payments.charge(card, payment.amount_cents + payment.tax_cents, key=key)
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


async def record_approval(ctx: Context, payment: PaymentRecord, charge: Charge) -> None:
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


def answer(payment: PaymentRecord) -> Payment:
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
        payment_status="SUCCESS",  # the original's word for every settled payment; `settlement` says how
        settlement=payment.status,
        total_amount=total,
        plan_tax=tax,
        transaction_no=payment.transaction_id,
        coupon_transaction_id=payment.coupon_transaction_id,
        card_id=str(payment.card_id) if payment.card_id is not None else None,
    )


def reference_of(body: MakePayment, payment: PaymentRecord | None) -> str:
    """A recorded payment's reference: the processor's as given, or a receipt number for cash without one."""
    return (payment.transaction_id if payment else "") or body.transaction_id or f"CASH{secrets.randbelow(10**12):012d}"


def _intent(body: MakePayment, ctx: Context, *, key: str, price: int, taxed: TaxQuoted) -> PaymentRecord:
    # A payment made elsewhere carries its reference from the start: the unique index refuses a second record
    # of it before anything is written (a card's reference is the gateway's, known once it answers).
    reference = reference_of(body, None) if body.recorded else ""
    return PaymentRecord(
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


def _card_on_file(body: MakePayment) -> dict[str, object]:
    """A card to save: its expiry and holder, kept sealed with the payment until the gateway approves."""
    holder = body.model_dump(include={"name_on_card", "address1", "address2", "city", "state", "zip"})
    holder |= {"address2": body.address2 or "", "country": "US"}
    return {"exp_month": body.exp_month, "exp_year": body.exp_year, "holder": holder}


async def _start_guard(ctx: Context, payment: PaymentRecord) -> WorkflowHandle[PaymentGuardWorkflow, str]:
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


async def _quote(ctx: Context, ask: TaxQuote, units: tuple[PlanUnit, ...], plans: dict[int, Plan]) -> TaxQuoted:
    """The order's tax registered at the carrier, or with the carrier down quoted from the rates held and
    registered at the carrier as soon as it is back."""
    workflow_id = tax_quote_workflow_id(ask.idempotency_key)

    def registered() -> Awaitable[TaxEstimate]:
        return run_lookup(ctx, TaxQuoteWorkflow.run, ask, workflow_id=workflow_id, shared=True)

    taxed = await _carrier_or_held(ctx, registered, ask.state, units, plans)
    return taxed if isinstance(taxed, TaxQuoted) else await _register_later(ctx, ask, taxed)


async def _carrier_or_held(
    ctx: Context,
    asked: Callable[[], Awaitable[TaxEstimate]],
    state: str,
    units: tuple[PlanUnit, ...],
    plans: dict[int, Plan],
) -> TaxEstimate:
    """The carrier's answer to `asked`, its rates held for the next outage; with the carrier down, the tax from the
    rates held, so that payment_details still quotes to the cent what make_payment then charges. The carrier's
    refusal stands. Once a few quotes in a row went unanswered, the carrier is not asked (each would wait out
    the lookup budget first) until the breaker's cool-down has passed."""
    breaker, systems = quote_breaker(ctx), ctx.settings.systems
    if not breaker.allows(systems.tax_breaker_cooldown_seconds):
        return await _from_held(ctx, state, units, plans)
    trial = breaker.trying  # this call is the one trial after the cool-down
    try:
        taxed = await asked()
    except LineupError as error:
        if error.rest_status not in UPSTREAM_DOWN:
            breaker.answered()  # a refusal is an answer: the service is up
            raise
        breaker.unanswered(systems.tax_breaker_failures)
        return await _from_held(ctx, state, units, plans)
    finally:
        if trial:
            breaker.settled()
    breaker.answered()
    # Each plan's rate: the tax split in proportion to the plans' prices times their months.
    weights, breakups = _split(units, plans, taxed.items)
    plan_ids = [unit.plan_id for unit in units]
    await hold(ctx.resources.db, state, zip(plan_ids, weights, shares(taxed.tax_cents, weights), breakups, strict=True))
    return taxed


class QuoteBreaker:
    """The carrier's tax service as this process last found it: a circuit breaker. After `failures` quotes in a row
    went unanswered it opens: quotes come from held rates at once for the cool-down, then one trial call asks the
    carrier (the others still use held rates); its answer closes the breaker, its silence opens it again.
    Our own few lines, not a library's (purgatory, aiobreaker): a failure here is an upstream-down envelope, not
    an exception type (a refusal is an answer), and the settings are read at each call."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.failures = 0  # unanswered quotes in a row
        self.opened_at: float | None = None  # the clock's time when it opened; None: closed
        self.trying = False  # the trial call is under way

    def allows(self, cooldown: float) -> bool:
        """Whether to ask the carrier now (open past its cool-down: this call is the one trial)."""
        if self.opened_at is None:
            return True
        if self.trying or self.clock() - self.opened_at < cooldown:
            return False
        self.trying = True
        return True

    def answered(self) -> None:
        if self.opened_at is not None:
            log.info("tax quotes from the carrier again")
        self.failures, self.opened_at = 0, None

    def unanswered(self, threshold: int) -> None:
        self.failures += 1
        if self.opened_at is None and self.failures < threshold:
            return
        if self.opened_at is None:
            log.warning("tax quotes from held rates", extra={"fields": {"unanswered": self.failures}})
        self.opened_at = self.clock()  # opened, or opened again by the trial's silence

    def settled(self) -> None:
        """The trial ended, whatever its end (a request cancelled mid-trial too): a later call may be the next."""
        self.trying = False


# One breaker per API process (its Temporal link is built once per app), so tests' apps never share one.
_breakers: weakref.WeakKeyDictionary[TemporalLink, QuoteBreaker] = weakref.WeakKeyDictionary()


def quote_breaker(ctx: Context) -> QuoteBreaker:
    link = ctx.resources.temporal
    if link not in _breakers:
        _breakers[link] = QuoteBreaker()
    return _breakers[link]


async def _from_held(ctx: Context, state: str, units: tuple[PlanUnit, ...], plans: dict[int, Plan]) -> TaxEstimate:
    async with ctx.uow.transaction() as session:
        rates = await held(session, state, {unit.plan_id for unit in units})
    missing = sorted({unit.plan_id for unit in units} - set(rates))
    if missing:
        named = ", ".join(str(plan_id) for plan_id in missing)
        raise refuse(
            f"The carrier's tax service is unavailable and Lineup holds no tax rate for plan {named} in {state} "
            "yet, so the tax cannot be quoted; please try again later",
            rest_status=502,
        )
    return held_tax(units, plans, rates)


def held_tax(units: tuple[PlanUnit, ...], plans: dict[int, Plan], rates: dict[int, TaxRate]) -> TaxEstimate:
    """The tax of these plans from held rates: each plan's price times its months, taxed as the carrier last taxed
    that plan's price (in proportion, should the price have changed), summed and rounded once; the items alike,
    in whole cents that add up to the tax."""
    total, by_item = Fraction(0), dict[str, Fraction]()
    for unit in units:
        rate = rates[unit.plan_id]
        if rate.amount_cents == 0:
            continue
        scale = Fraction(plans[unit.plan_id].price_cents * unit.months, rate.amount_cents)
        total += rate.tax_cents * scale
        for item in items_of(rate):
            by_item[item.name] = by_item.get(item.name, Fraction(0)) + item.cents * scale
    cents = int(total + Fraction(1, 2))  # half up, as the carrier rounds
    if not by_item:
        return TaxEstimate(cents)
    split = shares(cents, [int(weight * PRECISION) for weight in by_item.values()])
    return TaxEstimate(cents, [TaxLine(name, part) for name, part in zip(by_item, split, strict=True)])


async def _register_later(ctx: Context, ask: TaxQuote, estimate: TaxEstimate) -> TaxQuoted:
    """The calculation written as waiting for the carrier, and its registration workflow started (before any
    money moves: without it, the payment does not go on)."""
    # Lineup's calc id, the same for a repeated request (the carrier's are TX and ten digits: never these).
    calc_id = "LX" + hashlib.sha256(ask.idempotency_key.encode()).hexdigest()[:24].upper()
    waiting = TaxRegistration(
        calc_id=calc_id,
        vendor_id=ctx.caller.vendor_id,
        idempotency_key=ask.idempotency_key,
        state=ask.state,
        amount_cents=ask.amount_cents,
        tax_cents=estimate.tax_cents,
    )
    async with ctx.uow.transaction() as session:
        waiting = await add_registration(session, waiting)
    client = await ctx.temporal_client()
    async with ctx.outside("The workflow engine"):
        await client.start_workflow(
            TaxRegistrationWorkflow.run,
            TaxRegistrationJob(calc_id),
            id=tax_registration_workflow_id(calc_id),
            task_queue=ctx.task_queue,
            id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        )
    return TaxQuoted(waiting.tax_cents, estimate.items, calc_id=calc_id)


def detailed_plans(units: tuple[PlanUnit, ...], plans: dict[int, Plan], estimate: TaxEstimate) -> list[DetailedPlan]:
    """Each plan of the payment with its price, months and its share of every tax item."""
    _, breakups = _split(units, plans, estimate.items)
    return [
        DetailedPlan(
            plan_id=str(unit.plan_id),
            plan_name=plans[unit.plan_id].name,
            plan_price=money(plans[unit.plan_id].price_cents),
            no_of_months=str(unit.months),
            tax_breakup=[TaxItem(tax_name=item.name, tax_amount=money(item.cents)) for item in breakup],
        )
        for unit, breakup in zip(units, breakups, strict=True)
    ]


def _split(
    units: tuple[PlanUnit, ...], plans: dict[int, Plan], items: list[TaxLine]
) -> tuple[list[int], list[list[TaxLine]]]:
    """Each plan's weight (its price times its months) and its share of every tax item: what payment_details
    shows and what the rates held keep."""
    weights = [plans[unit.plan_id].price_cents * unit.months for unit in units]
    per_item = [shares(item.cents, weights) for item in items]
    breakups = [
        [TaxLine(item.name, split[index]) for item, split in zip(items, per_item, strict=True)]
        for index in range(len(units))
    ]
    return weights, breakups


def shares(total: int, weights: list[int]) -> list[int]:
    """`total` split in proportion to `weights`, in whole cents that add up to `total` (the last takes the rest)."""
    whole = sum(weights)
    if whole == 0:
        return [total] + [0] * (len(weights) - 1)
    parts = [total * weight // whole for weight in weights[:-1]]
    return [*parts, total - sum(parts)]


def money(cents: int) -> str:
    return f"{cents / 100:.2f}"


def price_cents(units: tuple[PlanUnit, ...], plans: dict[int, Plan]) -> int:
    return sum(plans[unit.plan_id].price_cents * unit.months for unit in units)


def plan_key(body: MakePayment) -> str:
    """The plans' part of a payment's default request key: one plan for a month keeps its plain id (the key
    payments made before lists had), anything else its stored text."""
    units = body.plan_id
    return str(units[0].plan_id) if units == (PlanUnit(units[0].plan_id, 1),) else as_text(units)


def _state_of(body: PaymentDetails, slot: Enrollment | None, ctx: Context) -> str:
    """The state taxes are due in: the ZIP's, or the enrollment id's (the vendor's own only)."""
    if body.zip_code is not None:
        if (state := state_of_zip(body.zip_code)) is None:
            raise refuse(NOT_SERVED)
        return state
    if slot is None or slot.vendor_id != ctx.caller.vendor_id:
        raise refuse(invalid_enrollment_id(body.enrollment_id))
    return slot.state


async def _collect(ctx: Context, calc_id: str, mark: MarkCollected) -> TaxReceipt:
    """The calculation collected through its TaxCollectionWorkflow's update, the workflow started if none runs."""
    settings = ctx.settings
    start = WithStartWorkflowOperation(
        TaxCollectionWorkflow.run,
        CollectTax(calc_id, ctx.caller.vendor_code, settings.payment.tax_idle_days, settings.worker.history_events),
        id=tax_workflow_id(calc_id),
        task_queue=ctx.task_queue,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        # A run that ended idle (or final, just now) may start again: it loads the calculation's state first.
        id_reuse_policy=WorkflowIDReusePolicy.ALLOW_DUPLICATE,
    )
    client = await ctx.temporal_client()
    try:
        async with ctx.outside("The carrier", within=ctx.lookup_seconds()):
            return await client.execute_update_with_start_workflow(
                TaxCollectionWorkflow.mark_collected, mark, start_workflow_operation=start
            )
    except WorkflowUpdateFailedError as failure:
        raise _refusal(failure.cause) from None
    finally:
        await started_anyway(start)  # its outcome read: no error left unread


def _refusal(cause: BaseException | None) -> LineupError:
    """An update that failed: the carrier's outage is the outage answer (it said "Activity task failed"), its
    refusal its words; the workflow's own refusal (a bad move) a conflict."""
    if not isinstance(cause, ActivityError):
        return refuse(str(getattr(cause, "message", cause)), rest_status=409)
    while isinstance(cause, ActivityError):
        cause = cause.cause
    if isinstance(cause, ApplicationError) and cause.type == CARRIER_REJECTED:
        return refuse(cause.message)
    return upstream_down("The carrier", timed_out=not isinstance(cause, ApplicationError))
