"""`/customer`: create_customer_prepaid_multiline (and its aliases), line_inquiry, activate_line and
customer_info."""

from __future__ import annotations

import contextlib
from dataclasses import replace
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio.client import WithStartWorkflowOperation, WorkflowUpdateFailedError
from temporalio.common import (
    WorkflowIDConflictPolicy,
    WorkflowIDReusePolicy,
)
from temporalio.exceptions import WorkflowAlreadyStartedError

from activities.enrollment import EnrollmentActivities
from models.errors import refuse
from models.messages.enrollment import (
    Activation,
    EnrollmentOrder,
    EnrollmentResult,
    InquiryRequest,
    LineProgress,
    Pacing,
    SyncWait,
)
from models.requests.enrollment import ActivateLine, CreateMultiline, CustomerInfo, LineInquiry
from models.results import customer_created, esim_entry, line_inquiry_result
from models.statuses import LineStatus
from models.tables.enrollment import Line
from observability.metrics import enrollment_started
from persistence.enrollment import account_lines, customer_line, esim_profiles, lines_of_order, plan_of, vendor_line
from services.context import Context
from services.intake import accept
from services.lookups import carrier_lookup
from services.temporal import LOOKUP_SECONDS, outside_system
from workflows.enrollment.line import LineWorkflow
from workflows.enrollment.order import EnrollmentWorkflow, enrollment_search_attributes
from workflows.ids import enrollment_workflow_id, inquiry_workflow_id, line_workflow_id
from workflows.policies import WORKFLOW_TASK_TIMEOUT

INQUIRY_FLAGS = ("line_inquiry", "balance_inquiry", "query_sim_info", "subscriber_status")
NO_CUSTOMER = "No customer found against this enrolment ID"
CUSTOMER_FIELDS = (
    "first_name", "last_name", "email", "service_address_one", "service_city", "service_state", "service_zip",
)  # fmt: skip


async def create_customer_prepaid_multiline(*, body: CreateMultiline, ctx: Context) -> list[dict[str, Any]]:
    """Accepts the lines (all or nothing), then starts or finds the enrollment workflow and waits for it."""
    settings = ctx.settings
    if len(body.lines) > settings.enrollment.max_lines:
        raise refuse(f"Lines must hold at most {settings.enrollment.max_lines} lines")
    ids = [line.enrollment_id for line in body.lines]
    order_id = enrollment_workflow_id(body.parent_enrollment_id, ids)
    agent = ctx.caller.agent_username
    if await accept(ctx, body, order_id=order_id):
        enrollment_started()
    order = EnrollmentOrder(
        order_id, body.parent_enrollment_id, ids, ctx.caller.vendor_code, agent, Pacing.of(settings)
    )
    start = WithStartWorkflowOperation(
        EnrollmentWorkflow.run, order, id=order_id, task_queue=ctx.temporal.task_queue,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
        task_timeout=WORKFLOW_TASK_TIMEOUT,
        search_attributes=enrollment_search_attributes(order),
    )  # fmt: skip
    try:
        async with outside_system("The workflow engine", within=settings.enrollment.sync_wait_seconds + LOOKUP_SECONDS):
            result = await ctx.temporal.client().execute_update_with_start_workflow(
                EnrollmentWorkflow.customers,
                SyncWait(settings.enrollment.sync_wait_seconds),
                start_workflow_operation=start,
            )
    except WorkflowAlreadyStartedError:
        # The start operation holds the same error in a future of its own; read it, or asyncio logs "Future
        # exception was never retrieved" for every repeated request.
        with contextlib.suppress(WorkflowAlreadyStartedError):
            await start.workflow_handle()
        # The enrollment finished long ago: its lines' records are the answer to the repeated request.
        async with ctx.uow.transaction() as session:
            result = EnrollmentResult([plan_of(line) for line in await lines_of_order(session, order_id)])
    entries = [customer_created(plan, body.invoice_number) for plan in result.lines]
    if any(line.esim for line in body.lines):
        await _add_esim_profiles(ctx, entries)
    return entries


async def activate_line(*, body: ActivateLine, ctx: Context) -> dict[str, Any]:
    """Activates a line created with activation_later=Y through its workflow's `activate` update (whose
    validator refuses any other state before it reaches history); answers as customer creation does."""
    async with ctx.uow.transaction() as session:
        line = await vendor_line(session, body.enrollment_id, vendor_id=ctx.caller.vendor_id)
    if line is None:
        raise refuse(NO_CUSTOMER, rest_status=404)
    if line.status != LineStatus.WAITING_ACTIVATION:
        raise refuse(not_waiting(line.status), rest_status=409)
    handle = ctx.temporal.client().get_workflow_handle(line_workflow_id(body.enrollment_id), result_type=LineProgress)
    activation = Activation(ctx.settings.enrollment.sync_wait_seconds, body.esn, body.uiccid)
    try:
        async with outside_system("The carrier", within=ctx.settings.enrollment.sync_wait_seconds + LOOKUP_SECONDS):
            progress = await handle.execute_update(LineWorkflow.activate, activation)
    except WorkflowUpdateFailedError as failure:  # another request activated it meanwhile
        raise refuse(str(getattr(failure.cause, "message", failure.cause)), rest_status=409) from None
    async with ctx.uow.transaction() as session:
        await session.refresh(line)
    plan = replace(plan_of(line), status=progress.status, mdn=progress.mdn, msid=progress.msid, msl=progress.msl)
    entries = [customer_created(plan, line.invoice_number)]
    if line.is_esim:
        await _add_esim_profiles(ctx, entries)
    return entries[0]


def not_waiting(status: str) -> str:
    return f"Line is not waiting for activation ({status})"


async def customer_info(*, body: CustomerInfo, ctx: Context) -> dict[str, Any]:
    """The customer named by enrollment id or customer id (the calling vendor's only) and its account's lines."""
    async with ctx.uow.transaction() as session:
        line = await _customer_line(session, body, vendor_id=ctx.caller.vendor_id)
        if line is None or line.cust_id is None:
            raise refuse("No customer found against this customer ID or enrollment ID", rest_status=404)
        account = await account_lines(session, cust_id=line.cust_id, vendor_id=ctx.caller.vendor_id)
    pii = ctx.cipher.open(line.pii)
    customer = {"customer_id": line.customer_id, "enrollment_id": line.enrollment_id}
    fields = {name: pii.get(name, "") for name in CUSTOMER_FIELDS}
    return {**customer, **fields, "lines": [_held(held) for held in account]}


def _held(line: Line) -> dict[str, Any]:
    return {
        "enrollment_id": line.enrollment_id, "mdn": line.mdn, "status": line.status, "plan_id": str(line.plan_id),
        "activation_type": line.activation_type, "carrier": line.carrier,
    }  # fmt: skip


async def _customer_line(session: AsyncSession, body: CustomerInfo, *, vendor_id: int) -> Line | None:
    if body.enrollment_id is not None:
        return await vendor_line(session, body.enrollment_id, vendor_id=vendor_id)
    assert body.customer_id is not None  # CustomerInfo needs one of the two
    return await customer_line(session, customer_id=body.customer_id, vendor_id=vendor_id)


async def _add_esim_profiles(ctx: Context, entries: list[dict[str, Any]]) -> None:
    """The eSIM profile the carrier assigned, read from its line (it never passes through workflow history)."""
    ids = [entry["data"]["enrollment_id"] for entry in entries]
    async with ctx.uow.transaction() as session:
        profiles = await esim_profiles(session, ids)
    for entry in entries:
        if sealed := profiles.get(entry["data"]["enrollment_id"]):
            profile = ctx.cipher.open(sealed)
            entry["data"]["esim"] = esim_entry(profile["iccid"], profile["activation_code"])


async def line_inquiry(*, body: LineInquiry, ctx: Context) -> dict[str, Any]:
    """Asks the carrier about the line, as the flags select (none set: everything)."""
    async with ctx.uow.transaction() as session:
        line = await vendor_line(session, body.enrollment_id, vendor_id=ctx.caller.vendor_id)
    if line is None:
        raise refuse(NO_CUSTOMER, rest_status=404)
    flags = {name: getattr(body, name) == "Y" for name in INQUIRY_FLAGS}
    if not any(flags.values()):
        flags = dict.fromkeys(INQUIRY_FLAGS, True)
    inquiry = InquiryRequest(body.enrollment_id, ctx.caller.vendor_code, **flags)
    workflow_id = inquiry_workflow_id(body.enrollment_id, ctx.request_id)
    answer = await carrier_lookup(ctx, EnrollmentActivities.line_inquiry, inquiry, workflow_id=workflow_id, answer=dict)
    return line_inquiry_result(answer, mdn=line.mdn, esn=line.iccid or line.esn)
