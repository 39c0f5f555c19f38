"""The enrollment domain's lookups a channel waits on, each under the lookup budget and visible in the Temporal
UI under an id naming it: LineInquiryWorkflow (`inquiry-<enrollment id>-<request id>`) and CarrierListWorkflow
(`carriers-<request id>`)."""

from __future__ import annotations

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.enrollment import EnrollmentActivities
    from models.messages.enrollment import CarrierList, CarrierListQuery, InquiryRequest, LineInquiryAnswer
    from workflows import policies


@workflow.defn
class LineInquiryWorkflow:
    @workflow.run
    async def run(self, request: InquiryRequest) -> LineInquiryAnswer:
        return await workflow.execute_activity_method(
            EnrollmentActivities.line_inquiry, request, **policies.lookup(request.budget_seconds)
        )


@workflow.defn
class CarrierListWorkflow:
    @workflow.run
    async def run(self, query: CarrierListQuery) -> CarrierList:
        return await workflow.execute_activity_method(
            EnrollmentActivities.carriers, query.vendor_code, **policies.lookup(query.budget_seconds)
        )
