"""The porting domain as the original's mobile channels call it: create_portin_v2… (a port added to a line
created without one, run by the port's workflow), get_list (the port orders of a line or its account) and
submit_portin (corrections, as update_portin)."""

from __future__ import annotations

import logging
from dataclasses import replace

from sqlalchemy.exc import IntegrityError
from temporalio.client import WithStartWorkflowOperation
from temporalio.common import WorkflowIDConflictPolicy

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
from models.errors import LineupError, refuse
from models.messages.enrollment import LinePlan, Pacing
from models.messages.porting import PortStart, PortStarted
from models.refusals import NO_PORT_ORDER, NO_RECORD, PORT_IN_PROGRESS, already_porting, not_waiting_for_activation
from models.requests.porting import CreatePortin, GetPortList, SubmitPortin, ValidatePortin
from models.statuses import LineStatus
from models.tables.enrollment import Line
from models.tables.porting import PortIn
from orchestration.lines import hand_over
from orchestration.link import started_anyway
from persistence.enrollment import plan_of, sim_line, vendor_line
from persistence.porting import ports_in_progress, ports_of, second_port
from persistence.transaction import DbSession
from services.enrollment.intake import PORT_SECRETS
from services.enrollment.lines import NO_CUSTOMER
from services.enrollment.paid import activation_refusal
from services.porting.status import correct_port, validate_portin
from workflows.ids import port_workflow_id
from workflows.porting import PortInWorkflow
from workflows.search_attributes import line_attributes

log = logging.getLogger("lineup.port")


@action("port", example=PORT_CREATED)
async def create_portin_v2_when_create_customer_was_called_without_portin_tag(
    *, body: CreatePortin, ctx: Context
) -> Reply[PortCreated]:
    """Ports a number into a line created without PORTIN: a line waiting for activation is activated on the
    ported number; an ACTIVE line keeps its number until the port completes, then takes the ported one. The
    port order is stored (old-account data encrypted); the port's workflow submits and follows it, and the
    answer comes once the carrier took the port (or within the create's wait, saying it has not answered)."""
    body = await _completed(ctx, body)
    eid = body.enrollment_id
    assert eid is not None
    async with ctx.uow.transaction() as session:
        line = await _portable_line(session, body, vendor_id=ctx.caller.vendor_id)
        await _store_order(session, ctx, body, line)
        plan, parent, active = plan_of(line), line.parent_enrollment_id, line.status == LineStatus.ACTIVE
    if not active:  # its LineWorkflow stops waiting for activate_line: the port activates it
        client = await ctx.temporal_client()
        async with ctx.outside("The workflow engine"):
            await hand_over(client, line, vendor_code=ctx.caller.vendor_code, settings=ctx.settings)
    started = await _start_port(ctx, plan, parent=parent, active=active)
    if started is not None and started.status == LineStatus.PORT_REJECTED:
        raise refuse(started.reason or "The carrier refused the port-in")
    port_id = started.port_id if started is not None else None
    result = PortCreateResult(accountId=plan.cust_id, portRequestNumber=port_id or "")
    created = PortCreated(MDN=body.port_number, REFRENCENO=f"PORT_CREATE_{eid}", RESULT=result)
    msg = "Port-in submitted" if port_id else "Port-in accepted; the carrier has not answered yet"
    return Reply(msg, created)


async def _start_port(ctx: Context, plan: LinePlan, *, parent: str, active: bool) -> PortStarted | None:
    """The port's workflow started and its submission waited for within the create's wait; None when the carrier
    has not answered by then (the port goes on)."""
    client = await ctx.temporal_client()
    port = PortStart(plan.enrollment_id, ctx.caller.vendor_code, Pacing.of(ctx.settings), line_active=active)
    ported = replace(plan, activation_type="PORTIN", status=LineStatus.ACTIVE if active else LineStatus.PORT_PENDING)
    start = WithStartWorkflowOperation(
        PortInWorkflow.run,
        port,
        id=port_workflow_id(plan.enrollment_id),
        task_queue=ctx.task_queue,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        search_attributes=line_attributes(ported, parent_enrollment_id=parent, agent_id=ctx.caller.agent_username),
    )
    try:
        async with ctx.outside("The carrier", within=ctx.settings.enrollment.sync_wait_seconds):
            return await client.execute_update_with_start_workflow(
                PortInWorkflow.submission, start_workflow_operation=start
            )
    except LineupError as problem:
        if not await started_anyway(start):
            await _withdraw(ctx, plan.enrollment_id)  # nothing runs it: the channel may send it again
            raise
        log.info("port %s: %s; it goes on", plan.enrollment_id, problem.msg)
        return None


async def _completed(ctx: Context, body: CreatePortin) -> CreatePortin:
    """The order with what the original's form may leave out: the line its SIM names, and the number's current
    carrier, asked of the carrier (as validate_portin does) when not given, once the line is known to exist."""
    async with ctx.uow.transaction() as session:
        if body.enrollment_id is not None:
            line = await vendor_line(session, body.enrollment_id, vendor_id=ctx.caller.vendor_id)
        else:
            assert body.sim is not None  # CreatePortin names a line one way or the other
            line = await sim_line(session, iccid=body.sim, vendor_id=ctx.caller.vendor_id)
    if line is None:
        raise refuse(NO_CUSTOMER, rest_status=404)
    found = {"enrollment_id": line.enrollment_id}
    if body.port_current_carrier is None:
        eligibility = await validate_portin(body=ValidatePortin(port_number=body.port_number), ctx=ctx)
        if eligibility.eligible != "Y":
            raise refuse(eligibility.reason or "The carrier says this number cannot be ported in")
        found["port_current_carrier"] = eligibility.current_carrier
    return body.model_copy(update=found)


async def _portable_line(session: DbSession, body: CreatePortin, *, vendor_id: int) -> Line:
    """The vendor's line, if it can take a port: waiting for activation, or ACTIVE with the number it was
    given, and no port of this number in progress elsewhere."""
    assert body.enrollment_id is not None  # _completed found it
    line = await vendor_line(session, body.enrollment_id, vendor_id=vendor_id)
    if line is None:
        raise refuse(NO_CUSTOMER, rest_status=404)
    if line.activation_type == "PORTIN":  # created as one, or its added port was submitted
        raise refuse(already_porting(line.status), rest_status=409)
    if line.status not in (LineStatus.WAITING_ACTIVATION, LineStatus.ACTIVE):
        raise refuse(not_waiting_for_activation(line.status), rest_status=409)
    if await ports_in_progress(session, [body.port_number], besides=[line.enrollment_id]):
        raise refuse(PORT_IN_PROGRESS, rest_status=409)
    if line.status == LineStatus.ACTIVE:
        return line
    # The port activates the line: a vendor that requires payment has it paid first, as for activate_line.
    if (refused := await activation_refusal(session, line)) is not None:
        raise refused
    return line


async def _store_order(session: DbSession, ctx: Context, body: CreatePortin, line: Line) -> None:
    """Stores the port order. An order already there that the carrier never took (its request did not reach the
    port's workflow, or the holder's check stopped it) is this request's repeat: its data is replaced."""
    if line.status != LineStatus.ACTIVE:  # a PORTIN line from here: its stuck step is its port's to retry
        line.activation_type = "PORTIN"
        session.add(line)
    assert body.port_current_carrier is not None  # given, or asked of the carrier (_completed)
    values = body.model_dump()
    secrets = ctx.cipher.seal({target: values[source] for source, target in PORT_SECRETS.items() if values[source]})
    order = await session.get(PortIn, line.enrollment_id)
    if order is not None:
        if order.carrier_port_id is not None:
            raise refuse(already_porting(order.status), rest_status=409)
        order.port_number, order.current_carrier, order.secrets = body.port_number, body.port_current_carrier, secrets
        session.add(order)
        return
    session.add(
        PortIn(
            enrollment_id=line.enrollment_id,
            port_number=body.port_number,
            current_carrier=body.port_current_carrier,
            secrets=secrets,
        )
    )
    try:
        await session.flush()  # two requests at once: the order's key (or the number's index) lets one in
    except IntegrityError as clash:
        raise refuse(PORT_IN_PROGRESS if second_port(clash) else already_porting(), rest_status=409) from None


async def _withdraw(ctx: Context, enrollment_id: str) -> None:
    """The port's workflow never started (the engine was away): the order this request stored goes, and a line
    waiting for activation is a new activation again."""
    async with ctx.uow.transaction() as session:
        order, line = await session.get(PortIn, enrollment_id), await session.get(Line, enrollment_id)
        if order is not None and order.carrier_port_id is None:
            await session.delete(order)
            if line is not None and line.status != LineStatus.ACTIVE:
                line.activation_type = "NEWACTIVATION"
                session.add(line)


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
