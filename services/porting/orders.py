"""The porting domain as the original's mobile channels call it: create_portin_v2… (a port added to a line
created without one, run by the line's own workflow), get_list (the port orders of a line or its account) and
submit_portin (corrections, as update_portin)."""

from __future__ import annotations

from sqlalchemy.exc import IntegrityError
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio.client import WorkflowUpdateFailedError, WorkflowUpdateStage

from dispatch.actions import action
from dispatch.context import Context, Reply
from models.answers.porting import (
    PORT_CREATED,
    PORT_LIST,
    PORT_UPDATE,
    PortCreated,
    PortCreateResult,
    PortList,
    PortListRecord,
    PortUpdate,
)
from models.carriers import CARRIER_NAMES
from models.documents import Fields
from models.errors import refuse
from models.messages.porting import PortRequest, PortStarted
from models.refusals import NO_PORT_ORDER, NO_RECORD, already_porting, not_waiting_for_activation
from models.requests.porting import CreatePortin, GetPortList, SubmitPortin
from models.statuses import LineStatus
from models.tables.enrollment import Line
from models.tables.porting import PortIn
from persistence.enrollment import active_holders, vendor_line
from persistence.porting import ports_of
from services.enrollment.intake import PORT_SECRETS
from services.enrollment.lines import NO_CUSTOMER
from services.enrollment.paid import activation_problem
from services.porting.status import correct_port
from workflows.enrollment.line import LineWorkflow
from workflows.ids import line_workflow_id

TAKEN_BY_WORKFLOW = "(porting)"  # the line's workflow already took a port: the stored order is its own


def number_held(number: str, holder: str) -> str:
    """The refusal of a port of a number an active line of the vendor holds (decisions.md has no move that
    ports that line out, so there is no exception)."""
    return f"Number {number} belongs to active line {holder}; it cannot be ported into another line"


@action("port", example=PORT_CREATED)
async def create_portin_v2_when_create_customer_was_called_without_portin_tag(
    *, body: CreatePortin, ctx: Context
) -> Reply[PortCreated]:
    """Ports a number into a line created without PORTIN that still waits for activation: the port order is
    stored (old-account data encrypted), then the line's workflow takes it (`port_in` update, refused before
    it reaches history when the line cannot take it), submits it and follows it as a PORTIN line's."""
    eid = body.enrollment_id
    async with ctx.uow.transaction() as session:
        line = await _portable_line(session, body, vendor_id=ctx.caller.vendor_id)
        stored = await _store_order(session, ctx, body, line)
        account_id = line.cust_id or ""
    client = await ctx.temporal_client()
    handle = client.get_workflow_handle(line_workflow_id(eid))
    request = PortRequest(eid, ctx.request_id)
    try:
        async with ctx.outside("The workflow engine"):
            update = await handle.start_update(
                LineWorkflow.port_in, request, id=f"portin-{eid}", wait_for_stage=WorkflowUpdateStage.ACCEPTED
            )
    except WorkflowUpdateFailedError as failure:
        reason = str(getattr(failure.cause, "message", failure.cause))
        if stored and TAKEN_BY_WORKFLOW not in reason:
            await _withdraw(ctx, eid)
        raise refuse(reason, rest_status=409) from None
    started: PortStarted | None = None
    try:  # the carrier's answer within the caller's wait; the port goes on either way
        async with ctx.outside("The carrier", within=ctx.settings.enrollment.sync_wait_seconds):
            started = await update.result()
    except Exception:  # noqa: BLE001 — still submitting when the wait is over: the answer says so
        started = None
    if started is not None and started.status == LineStatus.PORT_REJECTED:
        raise refuse(started.reason or "The carrier refused the port-in")
    port_id = started.port_id if started is not None else None
    result = PortCreateResult(accountId=account_id, portRequestNumber=port_id or "")
    created = PortCreated(MDN=body.port_number, REFRENCENO=f"PORT_CREATE_{eid}", RESULT=result)
    msg = "Port-in submitted" if port_id else "Port-in accepted; the carrier has not answered yet"
    return Reply(msg, created)


async def _portable_line(session: AsyncSession, body: CreatePortin, *, vendor_id: int) -> Line:
    """The vendor's line, if it can take a port: waiting for activation, and the number no active line's."""
    line = await vendor_line(session, body.enrollment_id, vendor_id=vendor_id)
    if line is None:
        raise refuse(NO_CUSTOMER, rest_status=404)
    if line.status == LineStatus.ACTIVE:
        raise refuse(f"Line is already active with its own number {line.mdn}", rest_status=409)
    if line.activation_type == "PORTIN":  # created as one, or its added port was submitted
        raise refuse(already_porting(line.status), rest_status=409)
    if line.status != LineStatus.WAITING_ACTIVATION:
        raise refuse(not_waiting_for_activation(line.status), rest_status=409)
    holders = await active_holders(session, [body.port_number], vendor_id=vendor_id)
    if body.port_number in holders:
        raise refuse(number_held(body.port_number, holders[body.port_number]), rest_status=409)
    # The port activates the line: a vendor that requires payment has it paid first, as for activate_line.
    problem = await activation_problem(
        session,
        vendor_id=vendor_id,
        parent=line.parent_enrollment_id,
        enrollment_id=line.enrollment_id,
        plan_id=line.plan_id,
    )
    if problem:
        raise refuse(problem, rest_status=402)
    return line


async def _store_order(session: AsyncSession, ctx: Context, body: CreatePortin, line: Line) -> bool:
    """Stores the port order; True when this request wrote it. An order already there that no workflow has
    taken (its request never reached the line) is this request's repeat: its data is replaced."""
    values = body.model_dump()
    secrets = ctx.cipher.seal({target: values[source] for source, target in PORT_SECRETS.items() if values[source]})
    order = await session.get(PortIn, line.enrollment_id)
    if order is not None:
        if order.carrier_port_id is not None:
            raise refuse(already_porting(order.status), rest_status=409)
        order.port_number, order.current_carrier, order.secrets = body.port_number, body.port_current_carrier, secrets
        session.add(order)
        return False
    session.add(
        PortIn(
            enrollment_id=line.enrollment_id,
            port_number=body.port_number,
            current_carrier=body.port_current_carrier,
            secrets=secrets,
        )
    )
    try:
        await session.flush()  # two requests at once: the order's key lets one of them in
    except IntegrityError:
        raise refuse(already_porting(), rest_status=409) from None
    return True


async def _withdraw(ctx: Context, enrollment_id: str) -> None:
    """The line's workflow refused the port (it was activated meanwhile): the order this request stored goes."""
    async with ctx.uow.transaction() as session:
        order = await session.get(PortIn, enrollment_id)
        if order is not None and order.carrier_port_id is None:
            await session.delete(order)


@action("port", example=PORT_LIST)
async def get_list(*, body: GetPortList, ctx: Context) -> PortList:
    """The port orders of line `enroll_id`, or with get_child_list Y of every line of its account; the old
    account number shown by its last 4 digits only."""
    vendor_id = ctx.caller.vendor_id
    async with ctx.uow.transaction() as session:
        line = await vendor_line(session, body.enroll_id, vendor_id=vendor_id)
        if line is None:
            raise refuse(NO_RECORD, rest_status=404)
        account = line.cust_id if body.get_child_list == "Y" else None
        orders = await ports_of(session, enrollment_id=line.enrollment_id, cust_id=account, vendor_id=vendor_id)
    if not orders:
        raise refuse(NO_RECORD, rest_status=404)
    return PortList(records=[_record(ctx, order) for order in orders])


def _record(ctx: Context, order: PortIn) -> PortListRecord:
    old = ctx.cipher.open(order.secrets, Fields)

    def shown(name: str) -> str:
        return str(old.get(name) or "")

    return PortListRecord(
        port_subscriber_id=order.enrollment_id,
        enroll_id=order.enrollment_id,
        portin_status=order.status,
        number_to_port=order.port_number,
        carrier=order.current_carrier,
        attempt_count=0 if order.carrier_port_id is None else 1,
        portin_company=CARRIER_NAMES.get(order.current_carrier.upper(), order.current_carrier),
        account_number=shown("account_number")[-4:],
        first_name=shown("first_name"),
        last_name=shown("last_name"),
        address_one=shown("address_one"),
        city=shown("city"),
        state=shown("state"),
        zip_code=shown("zip"),
        resolution_description=order.resolution_description or "",
        request_datetime=order.requested_at.isoformat() if order.requested_at else "",
    )


@action("port", example=PORT_UPDATE)
async def submit_portin(*, body: SubmitPortin, ctx: Context) -> PortUpdate:
    """The mobile channels' update_portin: corrections for port `portin_enrollment_id` of the account of
    `enrollment_id` (a line of it, or its holder), resubmitted by the port's workflow."""
    async with ctx.uow.transaction() as session:
        line = await vendor_line(session, body.enrollment_id, vendor_id=ctx.caller.vendor_id)
        ported = await vendor_line(session, body.portin_enrollment_id, vendor_id=ctx.caller.vendor_id)
    same_account = line is not None and ported is not None and ported.cust_id in (line.cust_id, line.customer_id)
    if ported is None or not same_account:
        raise refuse(NO_PORT_ORDER, rest_status=404)
    return await correct_port(ctx, body.portin_enrollment_id, body.corrections())
