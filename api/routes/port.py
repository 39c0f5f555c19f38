"""`/port`: query_portin (asks the port's workflow) and update_portin (corrections for a port the carrier
marked RESOLUTION_REQUIRED)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Request
from fastapi.responses import JSONResponse
from temporalio.client import WorkflowUpdateFailedError
from temporalio.service import RPCError, RPCStatusCode

from api.deps import LinesDep, SessionsDep, TemporalDep
from api.envelope import success
from api.errors import refuse, upstream_down
from api.gate import Caller, gate
from api.workflows import outside_system
from models.db import transaction
from models.envelope import Envelope
from models.long_running import PortCorrection, PortView
from models.requests.port import PortAction, QueryPortin, UpdatePortin
from models.tables.enrollment import Line, PortIn
from workflows.ids import port_workflow_id
from workflows.port_status import RESOLUTION_REQUIRED, PortStatusWorkflow

router = APIRouter(tags=["port"])
PortBody = Annotated[PortAction, Body(discriminator="action")]
PortCaller = Annotated[Caller, Depends(gate("port"))]
NO_ORDER = "No port-in order matches this enrollment id, ESN and MDN"


@router.post("/port", response_model=Envelope)
async def port(
    request: Request, body: PortBody, caller: PortCaller, sessions: SessionsDep, lines: LinesDep, temporal: TemporalDep
) -> JSONResponse:
    """Port-in status and corrections."""
    match body:
        case QueryPortin():
            view = await query_portin(body, caller, sessions, temporal)
            return success(request, {"records": [_record(view)]}, msg=f"Port-in status: {view.status}")
        case UpdatePortin():
            return success(request, await update_portin(body, caller, sessions, lines, temporal, request))


async def _order(sessions: SessionsDep, enroll_id: str, vendor_id: int) -> tuple[Line, PortIn] | None:
    async with sessions() as session:
        line, order = await session.get(Line, enroll_id), await session.get(PortIn, enroll_id)
    if line is None or order is None or line.vendor_id != vendor_id:
        return None
    return line, order


async def query_portin(body: QueryPortin, caller: Caller, sessions: SessionsDep, temporal: TemporalDep) -> PortView:
    """The port's state from its workflow (no carrier call), or from the database once it is gone."""
    found = await _order(sessions, body.enroll_id, caller.vendor_id)
    if found is None or found[1].port_number != body.mdn or body.esn not in (found[0].iccid, found[0].esn):
        raise refuse(NO_ORDER, rest_status=404)
    handle = temporal.require().get_workflow_handle_for(PortStatusWorkflow.run, port_workflow_id(body.enroll_id))
    try:
        return await handle.query(PortStatusWorkflow.status)
    except RPCError as error:
        if error.status != RPCStatusCode.NOT_FOUND:
            raise upstream_down("The workflow engine") from None
    order = found[1]  # not submitted yet, or refused at submission: the stored state is the answer
    return PortView(
        order.status, order.resolution_code, order.resolution_description, order.carrier_response,
        order.requested_at.isoformat() if order.requested_at else None,
        order.responded_at.isoformat() if order.responded_at else None,
    )  # fmt: skip


async def update_portin(
    body: UpdatePortin, caller: Caller, sessions: SessionsDep, lines: LinesDep, temporal: TemporalDep, request: Request
) -> dict[str, Any]:
    """Stores the corrections (encrypted) and has the port's workflow resubmit them."""
    found = await _order(sessions, body.enroll_id, caller.vendor_id)
    if found is None:
        raise refuse("No port-in order found for this enrollment id", rest_status=404)
    if found[1].status != RESOLUTION_REQUIRED:
        raise refuse(_not_awaiting(found[1].status), rest_status=409)
    async with transaction(sessions) as session:
        order = await session.get(PortIn, body.enroll_id)
        assert order is not None
        order.secrets = lines.seal({**lines.open(order.secrets), **body.corrections()})
        session.add(order)
    handle = temporal.require().get_workflow_handle_for(PortStatusWorkflow.run, port_workflow_id(body.enroll_id))
    try:
        async with outside_system("The carrier"):
            view = await handle.execute_update(PortStatusWorkflow.correct, PortCorrection(body.enroll_id, request.state.request_id))
    except WorkflowUpdateFailedError as failure:
        raise refuse(str(getattr(failure.cause, "message", failure.cause)), rest_status=409) from None
    return {"enroll_id": body.enroll_id, "portin_status": view.status}


def _not_awaiting(status: str) -> str:
    return f"The port-in is {status}; corrections are accepted only when it is {RESOLUTION_REQUIRED}"


def _record(view: PortView) -> dict[str, Any]:
    return {
        "portin_status": view.status, "resolution_description": view.resolution_description or "",
        "carrier_response": view.carrier_response or "", "request_datetime": view.request_datetime or "",
        "response_datetime": view.response_datetime or "",
    }  # fmt: skip
