"""TaxQuoteWorkflow: registers an order's tax calculation with the carrier (make_payment), under the
LOOKUP budget; its id derives from the payment's key, so a repeated payment finds the same calculation."""

from __future__ import annotations

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.carrier import CarrierActivities
    from models.messages.payment import TaxQuote, TaxQuoted
    from workflows import policies


@workflow.defn
class TaxQuoteWorkflow:
    @workflow.run
    async def run(self, quote: TaxQuote) -> TaxQuoted:
        return await workflow.execute_activity_method(CarrierActivities.register_tax, quote, **policies.LOOKUP)
