"""PaymentGuardWorkflow (`payment-<key>-<attempt>`): started before a card is charged, so money never moves
unrecorded. When the API records the gateway's answer it releases the guard, which ends; otherwise (the API
crashed, or its write failed) the guard settles the payment from the gateway's record of the charge, and if
it cannot be recorded at all, gives the charge back."""

from __future__ import annotations

import contextlib

from temporalio import workflow
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from activities.payments import PaymentActivities
    from models.messages.payment import PaymentGuard
    from workflows import policies


@workflow.defn
class PaymentGuardWorkflow:
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
