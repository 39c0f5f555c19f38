"""TaxCollectionWorkflow (`tax-<calc_id>`): one per tax calculation, from pending collection to collected.
`temporary` collects provisionally (again or then final); `final` collects and closes, and a repeated
`final` answers the same reference. The validator refuses `temporary` after `final` before it reaches
history."""

from __future__ import annotations

import asyncio

from temporalio import workflow
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from activities.tax import TaxActivities
    from models.long_running import CollectTax, MarkCollected, TaxCollect, TaxReceipt
    from workflows import policies

FINAL = "COLLECTED_FINAL"
STATUSES = ("temporary", "final")


def refusal(calc_id: str, mark: MarkCollected, receipt: TaxReceipt | None) -> str | None:
    if mark.status not in STATUSES:
        return "Status must be temporary or final"
    if receipt is not None and receipt.status == FINAL and mark.status == "temporary":
        return f"Tax calculation {calc_id} is already final; a temporary collection is refused"
    return None


@workflow.defn
class TaxCollectionWorkflow:
    @workflow.init
    def __init__(self, collect: CollectTax) -> None:
        self._collect = collect
        self._receipt: TaxReceipt | None = None
        self._lock = asyncio.Lock()  # one collection at a time, in arrival order

    @workflow.run
    async def run(self, collect: CollectTax) -> TaxReceipt:
        self._receipt = await workflow.execute_local_activity_method(TaxActivities.load_tax, collect.calc_id, **policies.STORE)
        await workflow.wait_condition(lambda: self._final() and workflow.all_handlers_finished())
        assert self._receipt is not None
        return self._receipt

    def _final(self) -> bool:
        return self._receipt is not None and self._receipt.status == FINAL

    @workflow.update
    async def mark_collected(self, mark: MarkCollected) -> TaxReceipt:
        await workflow.wait_condition(lambda: self._receipt is not None)
        async with self._lock:
            if problem := refusal(self._collect.calc_id, mark, self._receipt):
                raise ApplicationError(problem, type="InvalidTransition", non_retryable=True)
            if self._final():  # final again: the same reference, no second collection
                assert self._receipt is not None
                return self._receipt
            collect = TaxCollect(self._collect.calc_id, self._collect.vendor_code, mark.iccid, mark.status)
            receipt = await workflow.execute_activity_method(TaxActivities.collect_tax, collect, **policies.LOOKUP)
            await workflow.execute_local_activity_method(TaxActivities.record_tax, args=[receipt, mark.iccid], **policies.STORE)
            self._receipt = receipt
            return receipt

    @mark_collected.validator
    def _valid_transition(self, mark: MarkCollected) -> None:
        if problem := refusal(self._collect.calc_id, mark, self._receipt):
            raise ValueError(problem)

    @workflow.query
    def status(self) -> TaxReceipt | None:
        return self._receipt
