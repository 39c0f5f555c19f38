"""The payment domain's workflows: make_payment's guard over a card charge, and a tax calculation's registration
(now, or after a carrier outage), estimate and collection at the carrier."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import timedelta
from functools import partial

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from activities.payment import PaymentActivities
    from models.envelope import INVALID_TRANSITION
    from models.payment import (
        CollectTax,
        MarkCollected,
        PaymentGuard,
        TaxCollect,
        TaxEstimate,
        TaxEstimateQuery,
        TaxQuote,
        TaxQuoted,
        TaxReceipt,
        TaxRegistrationJob,
        TaxState,
    )
    from workflows import policies
    from workflows.policies import history_full

STATUSES = ("temporary", "final")


def tax_workflow_id(calc_id: str) -> str:
    return f"tax-{calc_id}"


def tax_quote_workflow_id(idempotency_key: str) -> str:
    return f"taxquote-{idempotency_key}"


def tax_registration_workflow_id(calc_id: str) -> str:
    return f"taxreg-{calc_id}"


def payment_guard_workflow_id(idempotency_key: str, attempt: int) -> str:
    return f"payment-{idempotency_key}-{attempt}"


def refusal(calc_id: str, mark: MarkCollected, receipt: TaxReceipt | None) -> str | None:
    """Why a collection is refused (the workflow's validator, and the API for a calculation already final)."""
    if mark.status not in STATUSES:
        return "Status must be temporary or final"
    if receipt is not None and receipt.status == TaxState.COLLECTED_FINAL and mark.status == "temporary":
        return f"Tax calculation {calc_id} is already final; a temporary collection is refused"
    return None


@workflow.defn
class PaymentGuardWorkflow:
    """`payment-<key>-<attempt>`: started before a card is charged, so money never moves unrecorded. Released by
    the API once it recorded the gateway's answer; otherwise (the API crashed, or its write failed) it settles the
    payment from the gateway's record of the charge, and gives the charge back if it cannot be recorded at all."""

    def __init__(self) -> None:
        self._released = False

    @workflow.run
    async def run(self, guard: PaymentGuard) -> str:
        with contextlib.suppress(TimeoutError):
            await workflow.wait_condition(lambda: self._released, timeout=guard.wait_seconds)
        if self._released:
            return "RECORDED_BY_API"
        try:
            return await workflow.execute_activity_method(PaymentActivities.settle_payment, guard, **policies.SETTLE)
        except ActivityError:
            workflow.logger.warning("payment %s could not be recorded: giving it back", guard.idempotency_key)
            return await workflow.execute_activity_method(PaymentActivities.void_payment, guard, **policies.VOID)

    @workflow.signal
    def release(self) -> None:
        """The API recorded the gateway's answer: nothing is left to guard."""
        self._released = True


@workflow.defn
class TaxQuoteWorkflow:
    """make_payment (`taxquote-<payment key>`): the order's tax calculation registered at the carrier; a repeated
    payment finds the same calculation."""

    @workflow.run
    async def run(self, quote: TaxQuote) -> TaxQuoted:
        return await workflow.execute_activity_method(
            PaymentActivities.register_tax, quote, **policies.lookup(quote.budget_seconds)
        )


@workflow.defn
class TaxEstimateWorkflow:
    """payment_details (`taxestimate-<request id>`): the tax make_payment would register, registering nothing."""

    @workflow.run
    async def run(self, query: TaxEstimateQuery) -> TaxEstimate:
        return await workflow.execute_activity_method(
            PaymentActivities.tax_estimate, query, **policies.lookup(query.budget_seconds)
        )


@workflow.defn
class TaxRegistrationWorkflow:
    """`taxreg-<calc_id>`: a calculation make_payment quoted from held rates while the carrier was down,
    registered at the carrier once it is back."""

    @workflow.run
    async def run(self, job: TaxRegistrationJob) -> str:
        """The carrier's calc id for it."""
        return await workflow.execute_activity_method(
            PaymentActivities.register_held_tax, job, **policies.TAX_REGISTRATION
        )


@workflow.defn
class TaxCollectionWorkflow:
    """`tax-<calc_id>`: a calculation from pending collection to collected. `temporary` collects provisionally
    (again, or then final); `final` collects and closes, and a repeated `final` answers the same reference. Not
    final and not updated for `idle_days`, it ends; the next update starts it again from the stored state."""

    @workflow.init
    def __init__(self, collect: CollectTax) -> None:
        self._collect = collect
        self._receipt: TaxReceipt | None = None
        self._lock = asyncio.Lock()  # one collection at a time, in arrival order
        self._updates = 0

    @workflow.run
    async def run(self, collect: CollectTax) -> TaxReceipt:
        self._receipt = await workflow.execute_local_activity_method(
            PaymentActivities.load_tax, collect.calc_id, **policies.STORE
        )
        while not self._final():
            seen = self._updates
            try:
                await workflow.wait_condition(partial(self._moved, seen), timeout=timedelta(days=collect.idle_days))
            except TimeoutError:
                break  # idle: a workflow per calculation must not wait forever
            if not self._final() and history_full(collect.history_events):
                # Every collection is in the database: the next run loads it, as a run started after idling does.
                await workflow.wait_condition(workflow.all_handlers_finished)
                if not self._final():  # a `final` that came in while the updates drained ends this run instead
                    workflow.continue_as_new(collect)
        await workflow.wait_condition(workflow.all_handlers_finished)
        assert self._receipt is not None
        return self._receipt

    @workflow.update
    async def mark_collected(self, mark: MarkCollected) -> TaxReceipt:
        self._updates += 1
        await workflow.wait_condition(lambda: self._receipt is not None)
        async with self._lock:
            if problem := refusal(self._collect.calc_id, mark, self._receipt):
                raise ApplicationError(problem, type=INVALID_TRANSITION, non_retryable=True)
            if self._final():  # final again: the same reference, no second collection
                assert self._receipt is not None
                return self._receipt
            # The key names this run's n-th collection: an activity retry repeats it, a new collection does not.
            key = f"tax-{self._collect.calc_id}-{workflow.info().run_id}-{self._updates}-{mark.status}"
            collect = TaxCollect(self._collect.calc_id, self._collect.vendor_code, mark.iccid, mark.status, key)
            receipt = await workflow.execute_activity_method(
                PaymentActivities.collect_tax, collect, **policies.lookup(mark.budget_seconds)
            )
            await workflow.execute_local_activity_method(
                PaymentActivities.record_tax, args=[receipt, mark.iccid], **policies.STORE
            )
            self._receipt = receipt
            return receipt

    @mark_collected.validator
    def _valid_transition(self, mark: MarkCollected) -> None:
        """A bad move (`temporary` after `final`) is refused before it reaches history."""
        if problem := refusal(self._collect.calc_id, mark, self._receipt):
            raise ValueError(problem)

    @workflow.query
    def status(self) -> TaxReceipt | None:
        return self._receipt

    def _moved(self, updates_seen: int) -> bool:
        return self._final() or self._updates != updates_seen

    def _final(self) -> bool:
        return self._receipt is not None and self._receipt.status == TaxState.COLLECTED_FINAL
