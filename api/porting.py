"""The porting domain's actions: query_portin, update_portin and submit_portin (corrections for a port the carrier
marked RESOLUTION_REQUIRED), validate_portin, create_portin_v2… (a port added to a created line) and get_list;
and the carrier's signed port-status push (`POST /carrier/port-status`, routed by api.main)."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import time
from dataclasses import replace
from datetime import timedelta

from pydantic import Field, ValidationError
from sqlalchemy.exc import IntegrityError
from temporalio.client import WithStartWorkflowOperation, WorkflowUpdateFailedError
from temporalio.common import WorkflowIDConflictPolicy
from temporalio.service import RPCError, RPCStatusCode

from adapters.http import Wire
from api.dispatch import Context, Reply, Resources, action, lookup_workflow_id, run_lookup
from api.enrollment import NO_CUSTOMER, PORT_SECRETS, activation_refusal, hand_over, tell_gave_way
from api.temporal import started_anyway
from models.crypto import Fields
from models.db import Session
from models.enrollment.lines import (
    ActivationType,
    Line,
    LinePlan,
    LineStatus,
    Pacing,
    corrected,
    plan_of,
    sim_line,
    vendor_line,
)
from models.envelope import (
    NO_PORT_ORDER,
    NO_RECORD,
    PORT_NOT_NOW,
    LineupError,
    already_porting,
    not_waiting_for_activation,
    refuse,
)
from models.observability import push_signature_refused
from models.porting import (
    PORT_CREATED,
    PORT_ELIGIBILITY,
    PORT_LIST,
    PORT_NUMBER_ATTEMPTS,
    PORT_QUERY,
    PORT_UPDATE,
    CreatePortin,
    GetPortList,
    PortCheck,
    PortCorrection,
    PortCreated,
    PortCreateResult,
    PortEligibility,
    PortIn,
    PortList,
    PortListRecord,
    PortQuery,
    PortRecord,
    PortStart,
    PortStarted,
    PortStatus,
    PortUpdate,
    PortView,
    QueryPortin,
    SubmitPortin,
    Taken,
    UpdatePortin,
    ValidatePortin,
    admit_ports,
    forget,
    not_awaiting_corrections,
    number_taken,
    ported_line,
    ports_of,
    second_port,
    take,
    vendor_of_line,
)
from models.types import CARRIER_NAMES, WellFormedText
from workflows.enrollment import line_attributes, port_workflow_id
from workflows.porting import CARRIER_PUSHED, PortInWorkflow, PortValidationWorkflow

log = logging.getLogger("lineup.port")
push_log = logging.getLogger("lineup.port_push")

NO_ORDER = "No port-in order matches this enrollment id, ESN and MDN"
SIGNATURE_HEADER = "x-carrier-signature"


class PortStatusPush(Wire, WellFormedText):
    """The carrier's push: which port, and (not taken as the new state) its status; text it cannot be looked up by
    (a NUL) is an invalid push, not a 500."""

    vendor_id: str = Field(max_length=64)
    port_id: str = Field(min_length=1, max_length=64)
    enrollment_id: str = Field(min_length=1, max_length=64)
    status: str = Field(default="", max_length=64)


class PushRefused(Exception):
    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status, self.reason = status, reason


@action(
    "port", interface=True, agent_required=False, msg="Port-in status: CONFIRMED", example=PORT_QUERY, reads_only=True
)
async def query_portin(*, body: QueryPortin, ctx: Context) -> Reply[PortQuery]:
    """The status of a pending port-in order, named by its enrollment id, ESN or SIM and number together: from
    the port's workflow (no carrier call), or from the database once it is gone."""
    async with ctx.uow.transaction() as session:
        found = await _order(session, body.enroll_id, ctx.caller.vendor_id)
    # No ESN given (decisions.md: a blank esn) names no SIM to match.
    if found is None or found[1].port_number != body.mdn or body.esn not in (None, found[0].iccid, found[0].esn):
        raise refuse(NO_ORDER, rest_status=404)
    view = await _view(ctx, found[1])
    return Reply(f"Port-in status: {view.status}", PortQuery(records=[PortRecord.of(view)]))


@action("port", example=PORT_UPDATE)
async def update_portin(*, body: UpdatePortin, ctx: Context) -> PortUpdate:
    """Corrected old-account data (any subset) for a port the carrier marked RESOLUTION_REQUIRED: stored
    encrypted, and resubmitted by the port's workflow."""
    return await correct_port(ctx, body.enroll_id, body.corrections())


@action("port", "inventory", example=PORT_ELIGIBILITY)
async def validate_portin(*, body: ValidatePortin, ctx: Context) -> PortEligibility:
    """Whether a number can be ported in, and the carrier it is with now: the carrier's answer."""
    budget = ctx.settings.systems.lookup_budget_seconds
    check = PortCheck(ctx.caller.vendor_code, body.port_number, body.zip_code, budget_seconds=budget)
    workflow_id = lookup_workflow_id("portcheck", ctx.request_id)
    return PortEligibility.of(await run_lookup(ctx, PortValidationWorkflow.run, check, workflow_id=workflow_id))


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
        line, gave_way = await _portable_line(session, ctx, body)
        await _store_order(session, ctx, body, line)
        plan, parent, active = plan_of(line), line.parent_enrollment_id, line.status == LineStatus.ACTIVE
    await tell_gave_way(ctx, gave_way)
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


@action("port", example=PORT_LIST, reads_only=True)
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
    return PortList(records=[_record(ctx, order, ported) for order, ported in orders])


@action("port", example=PORT_UPDATE)
async def submit_portin(*, body: SubmitPortin, ctx: Context) -> PortUpdate:
    """The mobile channels' update_portin: corrections for port `portin_enrollment_id` (its port_subscriber_id, or
    its line's enrollment id) of the account of `enrollment_id` (a line of it, or its holder), resubmitted by the
    port's workflow."""
    async with ctx.uow.transaction() as session:
        line = await vendor_line(session, body.enrollment_id, vendor_id=ctx.caller.vendor_id)
        ported = await ported_line(session, body.portin_enrollment_id, vendor_id=ctx.caller.vendor_id)
    same_account = line is not None and ported is not None and ported.cust_id in (line.cust_id, line.customer_id)
    if ported is None or not same_account:
        raise refuse(NO_PORT_ORDER, rest_status=404)
    return await correct_port(ctx, ported.enrollment_id, body.corrections())


async def correct_port(ctx: Context, enroll_id: str, corrections: dict[str, str]) -> PortUpdate:
    """Stores the corrections (encrypted) with the vendor's port of line `enroll_id` and has the port's
    workflow resubmit them (update_portin, submit_portin, the support console's port fix)."""
    async with ctx.uow.transaction() as session:
        found = await _order(session, enroll_id, ctx.caller.vendor_id)
        if found is None:
            raise refuse(NO_PORT_ORDER, rest_status=404)
        order = found[1]
        if order.status != PortStatus.RESOLUTION_REQUIRED:
            raise refuse(not_awaiting_corrections(order.status), rest_status=409)
        order.secrets = ctx.cipher.seal({**ctx.cipher.open(order.secrets, Fields), **corrections})
        session.add(order)
        await corrected(session, enroll_id, sorted(corrections), actor=ctx.caller.actor)
    client = await ctx.temporal_client()
    handle = client.get_workflow_handle(port_workflow_id(enroll_id), result_type=PortView)
    correction = PortCorrection(enroll_id, ctx.request_id, budget_seconds=ctx.settings.systems.lookup_budget_seconds)
    try:
        async with ctx.outside("The carrier", within=ctx.lookup_seconds()):
            view = await handle.execute_update(PortInWorkflow.correct, correction)
    except WorkflowUpdateFailedError as failure:
        raise refuse(str(getattr(failure.cause, "message", failure.cause)), rest_status=409) from None
    return PortUpdate(enroll_id=enroll_id, portin_status=view.status)


async def port_pushed(resources: Resources, body: bytes, offered: str | None) -> str:
    """Checks the signature and its time, the port and its vendor against our records, takes the push once, then
    signals the port's workflow (within the hourly limit). The answer's words; PushRefused with the HTTP status
    to answer otherwise."""
    porting = resources.settings.porting
    secret = porting.push_secret.get_secret_value()
    if not secret:
        raise PushRefused(404, "Port status pushes are not enabled")
    try:
        timestamp = signed_at(secret, body, offered, tolerance=porting.push_tolerance_seconds)
    except PushRefused:
        push_signature_refused()  # a forger's pushes, or a carrier whose secret or clock drifted: the alert's count
        raise
    try:
        push = PortStatusPush.model_validate_json(body)
    except ValidationError:
        raise PushRefused(400, "Invalid port status push") from None
    async with resources.db.transaction(write=False) as session:
        order = await session.get(PortIn, push.enrollment_id)
        vendor = await vendor_of_line(session, push.enrollment_id)
    if order is None or order.carrier_port_id != push.port_id or vendor != push.vendor_id:
        raise PushRefused(404, "Port not found")
    digest = hashlib.sha256(f"{timestamp}.".encode() + body).hexdigest()
    taken = await take(
        resources.db,
        digest=digest,
        enrollment_id=push.enrollment_id,
        polls_per_hour=porting.push_polls_per_hour,
        keep=timedelta(seconds=2 * porting.push_tolerance_seconds),
    )
    if taken == Taken.POLL:
        await _ask_now(resources, push, digest)
    return taken.value


def signature(secret: str, body: bytes, timestamp: int) -> str:
    """What the carrier sends (and the sandbox computes) in X-Carrier-Signature."""
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={digest}"


def signed_at(secret: str, body: bytes, offered: str | None, *, tolerance: float) -> int:
    """The push's signed timestamp; PushRefused (401) for a bad signature or one outside the tolerance."""
    parts = dict(item.split("=", 1) for item in (offered or "").split(",") if "=" in item)
    timestamp, given = parts.get("t", ""), parts.get("v1", "")
    if not (secret and timestamp.isdigit() and len(timestamp) <= 12):
        raise PushRefused(401, "Invalid signature")
    if not hmac.compare_digest(signature(secret, body, int(timestamp)), f"t={timestamp},v1={given}"):
        raise PushRefused(401, "Invalid signature")
    if abs(time.time() - int(timestamp)) > tolerance:
        raise PushRefused(401, "Signature timestamp outside the tolerance")
    return int(timestamp)


async def _ask_now(resources: Resources, push: PortStatusPush, digest: str) -> None:
    try:
        client = resources.temporal.client()  # LineupError while Temporal is not reachable
        await client.get_workflow_handle(port_workflow_id(push.enrollment_id)).signal(CARRIER_PUSHED)
    except (RPCError, LineupError) as problem:
        await forget(resources.db, digest)  # the carrier's next delivery of it is new to us
        if isinstance(problem, RPCError) and problem.status == RPCStatusCode.NOT_FOUND:  # the workflow has ended
            raise PushRefused(404, "Port is no longer followed") from None
        raise PushRefused(503, "The workflow engine is unavailable, please try again later") from None
    push_log.info("port %s pushed as %s: its workflow asks the carrier now", push.enrollment_id, push.status or "?")


async def _order(session: Session, enroll_id: str, vendor_id: int) -> tuple[Line, PortIn] | None:
    """The vendor's line and its port order; None for another vendor's, or a line without one."""
    line, order = await session.get(Line, enroll_id), await session.get(PortIn, enroll_id)
    if line is None or order is None or line.vendor_id != vendor_id:
        return None
    return line, order


async def _view(ctx: Context, order: PortIn) -> PortView:
    """The port's state as its workflow knows it, or as stored when the workflow is gone, not started or not
    answering: it records every change it sees."""
    client = await ctx.temporal_client()
    handle = client.get_workflow_handle(port_workflow_id(order.enrollment_id), result_type=PortView)
    try:
        async with asyncio.timeout(ctx.settings.temporal.rpc_seconds):
            return await handle.query(PortInWorkflow.status)
    except (RPCError, TimeoutError) as problem:
        if not (isinstance(problem, RPCError) and problem.status == RPCStatusCode.NOT_FOUND):
            log.warning("port %s answered from the database: %s", order.enrollment_id, type(problem).__name__)
    return PortView(
        order.status,
        order.resolution_code,
        order.resolution_description,
        order.carrier_response,
        order.requested_at.isoformat() if order.requested_at else None,
        order.responded_at.isoformat() if order.responded_at else None,
    )


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


async def _portable_line(session: Session, ctx: Context, body: CreatePortin) -> tuple[Line, tuple[str, ...]]:
    """The vendor's line, if it can take a port: waiting for activation, or ACTIVE with the number it was
    given, and no port of this number in progress elsewhere (another vendor's order past its port hold gives
    way: its enrollment id is returned, its workflow to be told)."""
    assert body.enrollment_id is not None  # _completed found it
    vendor_id = ctx.caller.vendor_id
    line = await vendor_line(session, body.enrollment_id, vendor_id=vendor_id)
    if line is None:
        raise refuse(NO_CUSTOMER, rest_status=404)
    if line.activation_type == ActivationType.PORTIN:  # created as one, or its added port was submitted
        raise refuse(already_porting(line.status), rest_status=409)
    if line.status not in (LineStatus.WAITING_ACTIVATION, LineStatus.ACTIVE):
        raise refuse(not_waiting_for_activation(line.status), rest_status=409)
    hold = timedelta(hours=ctx.settings.porting.hold_hours)
    admitted = await admit_ports(
        session, [body.port_number], besides=[line.enrollment_id], vendor_id=vendor_id, hold=hold
    )
    if why := admitted.refused.get(body.port_number):
        raise refuse(why, rest_status=409)
    # A port that activates the line: a vendor that requires payment has it paid first, as for activate_line.
    if line.status != LineStatus.ACTIVE and (refused := await activation_refusal(session, line)) is not None:
        raise refused
    return line, admitted.cancelled


async def _store_order(session: Session, ctx: Context, body: CreatePortin, line: Line) -> None:
    """Stores the port order. An order already there that the carrier never took (its request did not reach the
    port's workflow, or the holder's check stopped it) is this request's repeat: its data is replaced."""
    if line.status != LineStatus.ACTIVE:  # a PORTIN line from here: its stuck step is its port's to retry
        line.activation_type = ActivationType.PORTIN
        session.add(line)
    assert body.port_current_carrier is not None  # given, or asked of the carrier (_completed)
    values = body.model_dump()
    secrets = ctx.cipher.seal({target: values[source] for source, target in PORT_SECRETS.items() if values[source]})
    order = await session.get(PortIn, line.enrollment_id)
    if order is not None:  # keeps its number: the channel may have it from get_list already
        if order.carrier_port_id is not None:
            raise refuse(already_porting(order.status), rest_status=409)
        order.port_number, order.current_carrier, order.secrets = body.port_number, body.port_current_carrier, secrets
        order.old_esn = body.old_esn
        session.add(order)
        return
    for _ in range(PORT_NUMBER_ATTEMPTS):
        # Each attempt draws the order's number anew (PortIn's default).
        new_order = PortIn(
            enrollment_id=line.enrollment_id,
            port_number=body.port_number,
            current_carrier=body.port_current_carrier,
            secrets=secrets,
            old_esn=body.old_esn,
        )
        try:
            async with session.begin_nested():  # a clash of random port numbers rolls back this insert only
                session.add(new_order)
                await session.flush()  # two requests at once: the order's key (or the number's index) lets one in
            return
        except IntegrityError as clash:
            if not number_taken(clash):
                # Another request's port of the number came first: whose, this one cannot tell, so it names none.
                raise refuse(PORT_NOT_NOW if second_port(clash) else already_porting(), rest_status=409) from None
    raise RuntimeError("could not draw a port number no other order holds")


async def _start_port(ctx: Context, plan: LinePlan, *, parent: str, active: bool) -> PortStarted | None:
    """The port's workflow started and its submission waited for within the create's wait; None when the carrier
    has not answered by then (the port goes on)."""
    client = await ctx.temporal_client()
    port = PortStart(plan.enrollment_id, ctx.caller.vendor_code, Pacing.of(ctx.settings), line_active=active)
    ported = replace(
        plan, activation_type=ActivationType.PORTIN, status=LineStatus.ACTIVE if active else LineStatus.PORT_PENDING
    )
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


def _record(ctx: Context, order: PortIn, line: Line) -> PortListRecord:
    """get_list's record of a port order and its line: its old-account data opened, the account number's last 4
    only."""
    old = {name: str(value or "") for name, value in ctx.cipher.open(order.secrets, Fields).items()}
    return PortListRecord(
        port_subscriber_id=order.subscriber_id,
        enroll_id=order.enrollment_id,
        new_esn=line.iccid or line.esn or "",
        old_esn=order.old_esn or "",
        portin_status=order.status,
        number_to_port=order.port_number,
        carrier=order.current_carrier,
        attempt_count=0 if order.carrier_port_id is None else 1,
        portin_company=CARRIER_NAMES.get(order.current_carrier.upper(), order.current_carrier),
        account_number=old.get("account_number", "")[-4:],
        first_name=old.get("first_name", ""),
        last_name=old.get("last_name", ""),
        address_one=old.get("address_one", ""),
        city=old.get("city", ""),
        state=old.get("state", ""),
        zip_code=old.get("zip", ""),
        resolution_description=order.resolution_description or "",
        request_datetime=order.requested_at.isoformat() if order.requested_at else "",
    )
