"""One-activity request/response workflows for the outside calls a channel waits on. They run the call
under the LOOKUP budget (about 10 s) and make it visible in the Temporal UI."""

from __future__ import annotations

from typing import Any

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.carrier import CarrierActivities
    from models.messages import InquiryRequest, TaxQuote, TaxQuoted
    from workflows import policies


@workflow.defn
class LineInquiryWorkflow:
    @workflow.run
    async def run(self, request: InquiryRequest) -> dict[str, Any]:
        return await workflow.execute_activity_method(CarrierActivities.line_inquiry, request, **policies.LOOKUP)


@workflow.defn
class TaxQuoteWorkflow:
    @workflow.run
    async def run(self, quote: TaxQuote) -> TaxQuoted:
        return await workflow.execute_activity_method(CarrierActivities.register_tax, quote, **policies.LOOKUP)
