"""The enrollment domain's lines once created: activate_line (a line enrolled with activation_later=Y),
customer_info, and line_inquiry (asked of the carrier)."""

from __future__ import annotations

from dataclasses import replace

from temporalio.client import WorkflowUpdateFailedError
from temporalio.exceptions import WorkflowAlreadyStartedError

from dispatch.actions import WEB_SOURCES, action
from dispatch.context import Context
from dispatch.lookups import run_lookup
from models.answers.enrollment import (
    CREATED,
    CUSTOMER_INFO,
    INQUIRY,
    CustomerLine,
    LineEntry,
    LineInquiryData,
)
from models.crypto import FieldCipher
from models.documents import Fields
from models.errors import refuse
from models.geography import state_of_zip
from models.messages.enrollment import Activation, InquiryRequest
from models.refusals import NO_RECORD, not_waiting_for_activation
from models.requests.enrollment import ActivateLine, CustomerInfo, LineInquiry, NewNumberActivation
from models.statuses import LineStatus
from models.tables.enrollment import Line
from orchestration.lines import with_line_start
from orchestration.link import started_anyway
from persistence.enrollment import accounts_lines, customer_line, email_lines, plan_of, vendor_line
from persistence.transaction import DbSession
from services.enrollment.entries import line_entries, line_extras
from services.enrollment.paid import activation_refusal
from workflows.enrollment.line import LineWorkflow
from workflows.enrollment.lookups import LineInquiryWorkflow
from workflows.ids import inquiry_workflow_id

INQUIRY_FLAGS = ("line_inquiry", "balance_inquiry", "query_sim_info", "subscriber_status")
NO_CUSTOMER = "No customer found against this enrolment ID"


@action("customer", sources=WEB_SOURCES, example=CREATED)
async def activate_line(*, body: ActivateLine, ctx: Context) -> list[LineEntry]:
    """Activates a line created with activation_later=Y (a new SIM, esn or uiccid, may replace the attached one)
    through its workflow's `activate` update, whose validator refuses any other state before it reaches history;
    answers as customer creation does."""
    return await activate(ctx, body.enrollment_id, esn=body.esn, iccid=body.uiccid)


@action("inventory", example=CREATED)
async def new_number_activation_with_zip_code(*, body: NewNumberActivation, ctx: Context) -> list[LineEntry]:
    """activate_line as the mobile channels call it: the line waiting for activation gets a new number in the
    area of `zip_code` (a SIM sent with it replaces the attached one)."""
    if state_of_zip(body.zip_code) is None:
        raise refuse(f"Zip code {body.zip_code} is not in a served area")
    return await activate(ctx, body.enrollment_id, esn=body.esn, iccid=body.sim_number, zip_code=body.zip_code)


async def activate(
    ctx: Context, enrollment_id: str, *, esn: str | None, iccid: str | None, zip_code: str | None = None
) -> list[LineEntry]:
    """The line's workflow's `activate` update, answered as customer creation answers."""
    async with ctx.uow.transaction() as session:
        line = await vendor_line(session, enrollment_id, vendor_id=ctx.caller.vendor_id)
    if line is None:
        raise refuse(NO_CUSTOMER, rest_status=404)
    if line.status == LineStatus.ACTIVE:
        # The original's channels create the customer, then ask for its activation: a line checkout already
        # activated answers with its entry and MDN, and nothing goes to the carrier or its workflow.
        return await line_entries(ctx, [plan_of(line)], invoice_number=line.invoice_number)
    if line.status != LineStatus.WAITING_ACTIVATION:
        raise refuse(not_waiting_for_activation(line.status), rest_status=409)
    await _paid_for(ctx, line)
    wait = ctx.settings.enrollment.sync_wait_seconds
    client = await ctx.temporal_client()
    # Its workflow, started here if the order has not started it yet (the channel asked right after creation).
    start = with_line_start(line, vendor_code=ctx.caller.vendor_code, settings=ctx.settings)
    activation = Activation(wait, esn, iccid, zip_code)
    try:
        async with ctx.outside("The carrier", within=wait + ctx.lookup_seconds()):
            progress = await client.execute_update_with_start_workflow(
                LineWorkflow.activate, activation, start_workflow_operation=start
            )
    except WorkflowUpdateFailedError as failure:  # another request activated it meanwhile
        raise refuse(str(getattr(failure.cause, "message", failure.cause)), rest_status=409) from None
    except WorkflowAlreadyStartedError:  # its workflow ended: the line was ported in meanwhile
        raise refuse(not_waiting_for_activation("porting"), rest_status=409) from None
    finally:
        await started_anyway(start)
    async with ctx.uow.transaction() as session:
        line = await session.get(Line, enrollment_id) or line  # as the activation left it
    plan = replace(plan_of(line), status=progress.status, mdn=progress.mdn, msid=progress.msid, msl=progress.msl)
    return await line_entries(ctx, [plan], invoice_number=line.invoice_number)


async def _paid_for(ctx: Context, line: Line) -> None:
    """A vendor that requires payment activates a line only once a settled payment covers its plan."""
    async with ctx.uow.transaction() as session:
        refused = await activation_refusal(session, line)
    if refused is not None:
        raise refused


@action("customer", sources=WEB_SOURCES, example=CUSTOMER_INFO)
async def customer_info(*, body: CustomerInfo, ctx: Context) -> list[CustomerLine]:
    """The calling vendor's customers matching an enrollment id, a customer id or an e-mail (which may match
    several), one element per line of their accounts: the matching lines first, then their accounts' other
    lines, oldest first."""
    vendor_id = ctx.caller.vendor_id
    async with ctx.uow.transaction() as session:
        found = await _matching(session, body, vendor_id=vendor_id, cipher=ctx.cipher)
        matched = [line for line in found if line.cust_id is not None]
        if not matched:
            raise refuse(NO_RECORD, rest_status=404)
        cust_ids = [line.cust_id for line in matched if line.cust_id is not None]
        held = await accounts_lines(session, cust_ids=dict.fromkeys(cust_ids), vendor_id=vendor_id)
    first = {line.enrollment_id for line in matched}
    held = [row for row in held if row[0].customer_id is not None]
    held.sort(key=lambda row: row[0].enrollment_id not in first)  # stable: each group stays oldest first
    pins = await line_extras(ctx, [line.enrollment_id for line, _, _ in held])
    return [
        CustomerLine.of(
            line, pii=ctx.cipher.open(line.pii, Fields), zip_code=zip_code, plan=plan, pin=pins[line.enrollment_id].pin
        )
        for line, zip_code, plan in held
    ]


async def _matching(session: DbSession, body: CustomerInfo, *, vendor_id: int, cipher: FieldCipher) -> list[Line]:
    """The lines the request's key names: one for an enrollment id or a customer id, any number for an e-mail."""
    if body.enrollment_id is not None:
        line = await vendor_line(session, body.enrollment_id, vendor_id=vendor_id)
    elif body.customer_id is not None:
        line = await customer_line(session, customer_id=body.customer_id, vendor_id=vendor_id)
    else:
        assert body.email is not None  # CustomerInfo needs one of the three
        return await email_lines(session, cipher=cipher, email=body.email, vendor_id=vendor_id)
    return [] if line is None else [line]


@action("customer", interface=True, sources=WEB_SOURCES, example=INQUIRY)
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
