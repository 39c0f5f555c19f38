"""Orders through a carrier outage (issue 27, finding 15). make_payment registered the order's tax calculation at
the carrier before charging, so while the carrier was down no order could start, though lines themselves wait
durably. Now each quote the carrier gives is kept as the rate of one month of each plan in its state; when the
carrier's tax service is down, the payment is quoted from the last rates held, under a calc id of Lineup's
(derived from the payment's key, so a repeated request names the same one), and TaxRegistrationWorkflow registers
it at the carrier, under the payment's own idempotency key (so once), whenever the carrier is back. Collecting it
(update_tax_calculation_status_plum) registers it first if it is still waiting. Without a held rate for every
plan of the payment, the answer says which one is missing."""

from __future__ import annotations

import hashlib
from fractions import Fraction

from temporalio.common import WorkflowIDConflictPolicy

from dispatch.context import Context
from dispatch.lookups import run_lookup
from models.errors import LineupError, refuse
from models.messages.payment import TaxEstimate, TaxEstimateQuery, TaxItem, TaxQuote, TaxQuoted, TaxRegistrationJob
from models.plans import PlanUnit
from models.tables.enrollment import Plan
from models.tables.payment import TaxRate, TaxRegistration
from persistence.tax_rates import add_registration, hold, items_of
from persistence.tax_rates import held as held_rates
from services.payment.pricing import shares
from workflows.ids import lookup_workflow_id, tax_quote_workflow_id, tax_registration_workflow_id
from workflows.payment import TaxEstimateWorkflow, TaxQuoteWorkflow
from workflows.tax_registration import TaxRegistrationWorkflow

UPSTREAM_DOWN = (502, 504)  # models.errors.upstream_down's statuses: the system (or Temporal) did not answer
PRECISION = 10_000  # an item's share of the tax is weighed to 1/10,000 of a cent


async def quote(ctx: Context, ask: TaxQuote, units: tuple[PlanUnit, ...], plans: dict[int, Plan]) -> TaxQuoted:
    """The order's tax registered at the carrier (its rates kept), or, with the carrier down, quoted from the
    rates held and registered at the carrier as soon as it is back."""
    workflow_id = tax_quote_workflow_id(ask.idempotency_key)
    try:
        taxed = await run_lookup(ctx, TaxQuoteWorkflow.run, ask, workflow_id=workflow_id, shared=True)
    except LineupError as error:
        if error.rest_status not in UPSTREAM_DOWN:
            raise  # the carrier's refusal stands
        estimate = await _from_held(ctx, ask.state, units, plans)
        return await _register_later(ctx, ask, estimate)
    await hold(ctx.resources.db, ask.state, _rates(units, plans, taxed.tax_cents, taxed.items))
    return taxed


async def estimate(
    ctx: Context, ask: TaxEstimateQuery, units: tuple[PlanUnit, ...], plans: dict[int, Plan]
) -> TaxEstimate:
    """payment_details' figures: the carrier's estimate (its rates kept), or with the carrier down the held rates,
    so that it still quotes to the cent what make_payment then charges."""
    workflow_id = lookup_workflow_id("taxestimate", ctx.request_id)
    try:
        found = await run_lookup(ctx, TaxEstimateWorkflow.run, ask, workflow_id=workflow_id)
    except LineupError as error:
        if error.rest_status not in UPSTREAM_DOWN:
            raise
        return await _from_held(ctx, ask.state, units, plans)
    await hold(ctx.resources.db, ask.state, _rates(units, plans, found.tax_cents, found.items))
    return found


def deferred_calc_id(idempotency_key: str) -> str:
    """Lineup's calc id for a payment quoted from held rates: the same for a repeated request (the carrier's own
    ids are TX and ten digits; these never meet them)."""
    return "LX" + hashlib.sha256(idempotency_key.encode()).hexdigest()[:24].upper()


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
    return TaxEstimate(cents, [TaxItem(name, part) for name, part in zip(by_item, split, strict=True)])


async def _from_held(ctx: Context, state: str, units: tuple[PlanUnit, ...], plans: dict[int, Plan]) -> TaxEstimate:
    async with ctx.uow.transaction() as session:
        rates = await held_rates(session, state, {unit.plan_id for unit in units})
    missing = sorted({unit.plan_id for unit in units} - set(rates))
    if missing:
        named = ", ".join(str(plan_id) for plan_id in missing)
        raise refuse(
            f"The carrier's tax service is unavailable and Lineup holds no tax rate for plan {named} in {state} "
            "yet, so the tax cannot be quoted; please try again later",
            rest_status=502,
        )
    return held_tax(units, plans, rates)


async def _register_later(ctx: Context, ask: TaxQuote, estimate: TaxEstimate) -> TaxQuoted:
    """The calculation written as waiting for the carrier, and its registration workflow started (before any
    money moves: without it, the payment does not go on)."""
    calc_id = deferred_calc_id(ask.idempotency_key)
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
    return TaxQuoted(calc_id, waiting.tax_cents, estimate.items)


def _rates(
    units: tuple[PlanUnit, ...], plans: dict[int, Plan], tax_cents: int, items: list[TaxItem]
) -> list[tuple[int, int, int, list[TaxItem]]]:
    """(plan id, price, tax, items) of each plan of a quote: the quote's tax and items split in proportion to the
    plans' prices times their months (pricing.detailed_plans shows the same shares)."""
    weights = [plans[unit.plan_id].price_cents * unit.months for unit in units]
    taxes = shares(tax_cents, weights)
    per_item = [shares(item.cents, weights) for item in items]
    return [
        (
            unit.plan_id,
            weights[index],
            taxes[index],
            [TaxItem(item.name, split[index]) for item, split in zip(items, per_item, strict=True)],
        )
        for index, unit in enumerate(units)
    ]
