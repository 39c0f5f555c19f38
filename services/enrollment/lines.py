"""The enrollment domain's lines once created: activate_line (a line enrolled with activation_later=Y),
customer_info, and line_inquiry (asked of the carrier)."""

from __future__ import annotations

from dataclasses import replace

from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio.client import WorkflowUpdateFailedError

from models.answers.enrollment import (
    CREATED,
    CUSTOMER_INFO,
    INQUIRY,
    CustomerInfoData,
    HeldLine,
    LineEntry,
    LineInquiryData,
)
from models.errors import refuse
from models.messages.enrollment import Activation, InquiryRequest, LineProgress
from models.requests.enrollment import ActivateLine, CustomerInfo, LineInquiry
from models.statuses import LineStatus
from models.tables.enrollment import Line
from persistence.enrollment import account_lines, customer_line, plan_of, vendor_line
from services.actions import WEB_SOURCES, action
from services.context import Context
from services.enrollment.create import esim_entries
from services.lookups import run_lookup
from workflows.enrollment.line import LineWorkflow
from workflows.enrollment.lookups import LineInquiryWorkflow
from workflows.ids import inquiry_workflow_id, line_workflow_id

INQUIRY_FLAGS = ("line_inquiry", "balance_inquiry", "query_sim_info", "subscriber_status")
NO_CUSTOMER = "No customer found against this enrolment ID"
CUSTOMER_FIELDS = (
    "first_name", "last_name", "email", "service_address_one", "service_city", "service_state", "service_zip",
)  # fmt: skip


@action("customer", sources=WEB_SOURCES, example=CREATED)
async def activate_line(*, body: ActivateLine, ctx: Context) -> list[LineEntry]:
    """Activates a line created with activation_later=Y (a new SIM, esn or uiccid, may replace the attached one)
    through its workflow's `activate` update, whose validator refuses any other state before it reaches history;
    answers as customer creation does."""
    async with ctx.uow.transaction() as session:
        line = await vendor_line(session, body.enrollment_id, vendor_id=ctx.caller.vendor_id)
    if line is None:
        raise refuse(NO_CUSTOMER, rest_status=404)
    if line.status != LineStatus.WAITING_ACTIVATION:
        raise refuse(not_waiting(line.status), rest_status=409)
    wait = ctx.settings.enrollment.sync_wait_seconds
    client = await ctx.temporal_client()
    handle = client.get_workflow_handle(line_workflow_id(body.enrollment_id), result_type=LineProgress)
    try:
        async with ctx.outside("The carrier", within=wait + ctx.lookup_seconds()):
            progress = await handle.execute_update(LineWorkflow.activate, Activation(wait, body.esn, body.uiccid))
    except WorkflowUpdateFailedError as failure:  # another request activated it meanwhile
        raise refuse(str(getattr(failure.cause, "message", failure.cause)), rest_status=409) from None
    async with ctx.uow.transaction() as session:
        await session.refresh(line)
    plan = replace(plan_of(line), status=progress.status, mdn=progress.mdn, msid=progress.msid, msl=progress.msl)
    esims = await esim_entries(ctx, [line.enrollment_id]) if line.is_esim else {}
    return [LineEntry.of(plan, line.invoice_number, esims.get(line.enrollment_id))]


def not_waiting(status: str) -> str:
    return f"Line is not waiting for activation ({status})"


@action("customer", sources=WEB_SOURCES, example=CUSTOMER_INFO)
async def customer_info(*, body: CustomerInfo, ctx: Context) -> CustomerInfoData:
    """A customer of the calling vendor, by enrollment id or customer id, and the lines of its account."""
    async with ctx.uow.transaction() as session:
        line = await _customer_line(session, body, vendor_id=ctx.caller.vendor_id)
        if line is None or line.cust_id is None:
            raise refuse("No customer found against this customer ID or enrollment ID", rest_status=404)
        account = await account_lines(session, cust_id=line.cust_id, vendor_id=ctx.caller.vendor_id)
    pii = ctx.cipher.open(line.pii)
    assert line.customer_id is not None  # a line with an account has its customer record
    return CustomerInfoData(
        customer_id=line.customer_id,
        enrollment_id=line.enrollment_id,
        lines=[HeldLine.of(held) for held in account],
        **{name: str(pii.get(name, "")) for name in CUSTOMER_FIELDS},
    )


async def _customer_line(session: AsyncSession, body: CustomerInfo, *, vendor_id: int) -> Line | None:
    if body.enrollment_id is not None:
        return await vendor_line(session, body.enrollment_id, vendor_id=vendor_id)
    assert body.customer_id is not None  # CustomerInfo needs one of the two
    return await customer_line(session, customer_id=body.customer_id, vendor_id=vendor_id)


@action("customer", sources=WEB_SOURCES, example=INQUIRY)
async def line_inquiry(*, body: LineInquiry, ctx: Context) -> LineInquiryData:
    """Asks the carrier about a line, as the flags select (none set: everything); a number the carrier does
    not hold for the vendor (909) passes through as the carrier said it."""
    async with ctx.uow.transaction() as session:
        line = await vendor_line(session, body.enrollment_id, vendor_id=ctx.caller.vendor_id)
    if line is None:
        raise refuse(NO_CUSTOMER, rest_status=404)
    flags = {name: getattr(body, name) == "Y" for name in INQUIRY_FLAGS}
    if not any(flags.values()):
        flags = dict.fromkeys(INQUIRY_FLAGS, True)
    inquiry = InquiryRequest(
        body.enrollment_id, ctx.caller.vendor_code, budget_seconds=ctx.settings.systems.lookup_budget_seconds, **flags
    )
    workflow_id = inquiry_workflow_id(body.enrollment_id, ctx.request_id)
    answer = await run_lookup(ctx, LineInquiryWorkflow.run, inquiry, workflow_id=workflow_id)
    return LineInquiryData.of(answer, mdn=line.mdn, esn=line.iccid or line.esn)
