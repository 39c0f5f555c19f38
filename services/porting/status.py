"""The porting domain: query_portin (asks the port's workflow), update_portin (corrections for a port the
carrier marked RESOLUTION_REQUIRED) and validate_portin (asks the carrier whether a number can come in)."""

from __future__ import annotations

import asyncio
import logging

from temporalio.client import WorkflowUpdateFailedError
from temporalio.service import RPCError, RPCStatusCode

from dispatch.actions import action
from dispatch.context import Context, Reply
from dispatch.lookups import run_lookup
from models.answers.porting import (
    PORT_ELIGIBILITY,
    PORT_QUERY,
    PORT_UPDATE,
    PortEligibility,
    PortQuery,
    PortRecord,
    PortUpdate,
)
from models.documents import Fields
from models.errors import refuse
from models.messages.porting import PortCheck, PortCorrection, PortView
from models.refusals import NO_PORT_ORDER
from models.requests.porting import QueryPortin, UpdatePortin, ValidatePortin
from models.statuses import PortStatus
from models.tables.enrollment import Line
from models.tables.porting import PortIn
from persistence import events
from persistence.transaction import DbSession
from workflows.ids import lookup_workflow_id, port_workflow_id
from workflows.porting import PortInWorkflow, PortValidationWorkflow

log = logging.getLogger("lineup.port")
NO_ORDER = "No port-in order matches this enrollment id, ESN and MDN"


@action("port", interface=True, agent_required=False, msg="Port-in status: CONFIRMED", example=PORT_QUERY)
async def query_portin(*, body: QueryPortin, ctx: Context) -> Reply[PortQuery]:
    """The status of a pending port-in order, named by its enrollment id, ESN or SIM and number together: from
    the port's workflow (no carrier call), or from the database once it is gone."""
    async with ctx.uow.transaction() as session:
        found = await _order(session, body.enroll_id, ctx.caller.vendor_id)
    if found is None or found[1].port_number != body.mdn or not _same_sim(body.esn, found[0]):
        raise refuse(NO_ORDER, rest_status=404)
    view = await _view(ctx, found[1])
    return Reply(f"Port-in status: {view.status}", PortQuery(records=[PortRecord.of(view)]))


def _same_sim(esn: str | None, line: Line) -> bool:
    """The ESN or SIM the port was placed on; none given (decisions.md: a blank esn) names no SIM to match."""
    return esn is None or esn in (line.iccid, line.esn)


@action("port", example=PORT_UPDATE)
async def update_portin(*, body: UpdatePortin, ctx: Context) -> PortUpdate:
    """Corrected old-account data (any subset) for a port the carrier marked RESOLUTION_REQUIRED: stored
    encrypted, and resubmitted by the port's workflow."""
    return await correct_port(ctx, body.enroll_id, body.corrections())


async def correct_port(ctx: Context, enroll_id: str, corrections: dict[str, str]) -> PortUpdate:
    """Stores the corrections (encrypted) with the vendor's port of line `enroll_id` and has the port's
    workflow resubmit them (update_portin, submit_portin)."""
    async with ctx.uow.transaction() as session:
        found = await _order(session, enroll_id, ctx.caller.vendor_id)
        if found is None:
            raise refuse(NO_PORT_ORDER, rest_status=404)
        order = found[1]
        if order.status != PortStatus.RESOLUTION_REQUIRED:
            raise refuse(_not_awaiting(order.status), rest_status=409)
        order.secrets = ctx.cipher.seal({**ctx.cipher.open(order.secrets, Fields), **corrections})
        session.add(order)
        await events.corrected(session, enroll_id, sorted(corrections), actor=ctx.caller.actor)  # issue 21
    client = await ctx.temporal_client()
    handle = client.get_workflow_handle(port_workflow_id(enroll_id), result_type=PortView)
    correction = PortCorrection(enroll_id, ctx.request_id, budget_seconds=ctx.settings.systems.lookup_budget_seconds)
    try:
        async with ctx.outside("The carrier", within=ctx.lookup_seconds()):
            view = await handle.execute_update(PortInWorkflow.correct, correction)
    except WorkflowUpdateFailedError as failure:
        raise refuse(str(getattr(failure.cause, "message", failure.cause)), rest_status=409) from None
    return PortUpdate(enroll_id=enroll_id, portin_status=view.status)


async def _order(session: DbSession, enroll_id: str, vendor_id: int) -> tuple[Line, PortIn] | None:
    line, order = await session.get(Line, enroll_id), await session.get(PortIn, enroll_id)
    if line is None or order is None or line.vendor_id != vendor_id:
        return None
    return line, order


async def _view(ctx: Context, order: PortIn) -> PortView:
    client = await ctx.temporal_client()
    handle = client.get_workflow_handle(port_workflow_id(order.enrollment_id), result_type=PortView)
    try:
        async with asyncio.timeout(ctx.settings.temporal.rpc_seconds):
            return await handle.query(PortInWorkflow.status)
    except (RPCError, TimeoutError) as problem:
        if not (isinstance(problem, RPCError) and problem.status == RPCStatusCode.NOT_FOUND):
            log.warning("port %s answered from the database: %s", order.enrollment_id, type(problem).__name__)
    # Not submitted yet, refused at submission, or Temporal not answering: the port's workflow records every
    # change it sees, so the stored state is the answer.
    return PortView(
        order.status,
        order.resolution_code,
        order.resolution_description,
        order.carrier_response,
        order.requested_at.isoformat() if order.requested_at else None,
        order.responded_at.isoformat() if order.responded_at else None,
    )


@action("port", "inventory", example=PORT_ELIGIBILITY)
async def validate_portin(*, body: ValidatePortin, ctx: Context) -> PortEligibility:
    """Whether a number can be ported in, and the carrier it is with now: the carrier's answer."""
    check = PortCheck(
        ctx.caller.vendor_code,
        body.port_number,
        body.zip_code,
        budget_seconds=ctx.settings.systems.lookup_budget_seconds,
    )
    workflow_id = lookup_workflow_id("portcheck", ctx.request_id)
    return PortEligibility.of(await run_lookup(ctx, PortValidationWorkflow.run, check, workflow_id=workflow_id))


def _not_awaiting(status: str) -> str:
    return f"The port-in is {status}; corrections are accepted only when it is {PortStatus.RESOLUTION_REQUIRED}"
