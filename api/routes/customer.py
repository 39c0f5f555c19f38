"""`/customer`: create_customer_prepaid_multiline (and its aliases) and line_inquiry."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Request
from fastapi.responses import JSONResponse
from temporalio.client import WithStartWorkflowOperation
from temporalio.common import SearchAttributePair, TypedSearchAttributes, WorkflowIDConflictPolicy, WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError

from activities.store import plan_of
from api.deps import LinesDep, SessionsDep, SettingsDep, TemporalDep
from api.envelope import success
from api.errors import refuse
from api.gate import Caller, gate
from api.intake import accept
from api.workflows import outside_system
from models.envelope import Envelope
from models.messages import EnrollmentOrder, EnrollmentResult, InquiryRequest, Pacing, SyncWait
from models.requests.customer import CreateMultiline, CustomerAction, LineInquiry
from models.results import customer_created, line_inquiry_result
from workflows.enrollment import EnrollmentWorkflow
from workflows.ids import enrollment_workflow_id, inquiry_workflow_id
from workflows.lookups import LineInquiryWorkflow
from workflows.search_attributes import AGENT_ID, PARENT_ENROLLMENT_ID

router = APIRouter(tags=["customer"])
CustomerBody = Annotated[CustomerAction, Body(discriminator="action")]
CustomerCaller = Annotated[Caller, Depends(gate("customer"))]
INQUIRY_FLAGS = ("line_inquiry", "balance_inquiry", "query_sim_info", "subscriber_status")


@router.post("/customer", response_model=Envelope)
async def customer(
    request: Request, body: CustomerBody, caller: CustomerCaller, settings: SettingsDep, sessions: SessionsDep,
    lines: LinesDep, temporal: TemporalDep,
) -> JSONResponse:  # fmt: skip
    """Customer creation and line inquiry."""
    vendor = caller.vendor_code
    match body:
        case CreateMultiline():
            result = await create_customer_prepaid_multiline(body, caller, vendor, settings, sessions, lines, temporal)
            return success(request, [customer_created(plan, body.invoice_number) for plan in result.lines])
        case LineInquiry():
            return success(request, await line_inquiry(body, caller, vendor, lines, temporal, request))


async def create_customer_prepaid_multiline(
    body: CreateMultiline, caller: Caller, vendor: str, settings: SettingsDep, sessions: SessionsDep,
    lines: LinesDep, temporal: TemporalDep,
) -> EnrollmentResult:  # fmt: skip
    """Accepts the lines (all or nothing), then starts or finds the enrollment workflow and waits for it."""
    if len(body.lines) > settings.max_lines:
        raise refuse(f"Lines must hold at most {settings.max_lines} lines")
    ids = [line.enrollment_id for line in body.lines]
    order_id = enrollment_workflow_id(body.parent_enrollment_id, ids)
    agent = caller.agent.username if caller.agent else None
    await accept(sessions, lines, body, vendor_id=caller.vendor_id, agent=agent, order_id=order_id)
    pacing = Pacing(settings.carrier_max_attempts, settings.port_poll_seconds, settings.port_max_days)
    order = EnrollmentOrder(order_id, body.parent_enrollment_id, ids, vendor, agent, pacing)
    start = WithStartWorkflowOperation(
        EnrollmentWorkflow.run, order, id=order_id, task_queue=settings.temporal_task_queue,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
        search_attributes=TypedSearchAttributes(
            [SearchAttributePair(PARENT_ENROLLMENT_ID, body.parent_enrollment_id), SearchAttributePair(AGENT_ID, agent or "")]
        ),
    )  # fmt: skip
    try:
        async with outside_system("The workflow engine"):
            return await temporal.require().execute_update_with_start_workflow(
                EnrollmentWorkflow.customers, SyncWait(settings.sync_wait_seconds), start_workflow_operation=start
            )
    except WorkflowAlreadyStartedError:
        # The enrollment finished long ago: its lines' records are the answer to the repeated request.
        return EnrollmentResult([plan_of(line) for line in await lines.lines_of_order(order_id)])


async def line_inquiry(
    body: LineInquiry, caller: Caller, vendor: str, lines: LinesDep, temporal: TemporalDep, request: Request
) -> dict[str, Any]:
    """Asks the carrier about the line, as the flags select (none set: everything)."""
    line = await lines.find(body.enrollment_id, vendor_id=caller.vendor_id)
    if line is None:
        raise refuse("No customer found against this enrolment ID", rest_status=404)
    flags = {name: getattr(body, name) == "Y" for name in INQUIRY_FLAGS}
    if not any(flags.values()):
        flags = dict.fromkeys(INQUIRY_FLAGS, True)
    inquiry = InquiryRequest(body.enrollment_id, vendor, **flags)
    async with outside_system("The carrier"):
        answer = await temporal.require().execute_workflow(
            LineInquiryWorkflow.run, inquiry, id=inquiry_workflow_id(body.enrollment_id, request.state.request_id),
            task_queue=request.app.state.settings.temporal_task_queue,
        )  # fmt: skip
    return line_inquiry_result(answer, mdn=line.mdn, esn=line.iccid or line.esn)

