"""`/ops`: support staff list stuck enrollments and retry them (role `support`)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Request
from fastapi.responses import JSONResponse

from api.deps import LinesDep, TemporalDep
from api.envelope import success
from api.errors import refuse
from api.gate import Caller, gate
from api.workflows import outside_system
from models.envelope import Envelope
from models.requests.ops import ListStuckEnrollments, OpsAction, RetryEnrollment
from workflows.signals import retry_line

router = APIRouter(tags=["ops"])
OpsBody = Annotated[OpsAction, Body(discriminator="action")]
OpsCaller = Annotated[Caller, Depends(gate("ops"))]


@router.post("/ops", response_model=Envelope)
async def ops(request: Request, body: OpsBody, caller: OpsCaller, lines: LinesDep, temporal: TemporalDep) -> JSONResponse:
    """Support operations."""
    match body:
        case ListStuckEnrollments():
            return success(request, await list_stuck_enrollments(body, caller, lines))
        case RetryEnrollment():
            return success(request, await retry_enrollment(body, caller, lines, temporal))


async def list_stuck_enrollments(body: ListStuckEnrollments, caller: Caller, lines: LinesDep) -> list[dict[str, Any]]:
    """The vendor's stuck lines with their last error, oldest first."""
    return [
        {
            "enrollment_id": line.enrollment_id, "parent_enrollment_id": line.parent_enrollment_id,
            "status": line.status, "last_error": line.last_error or "", "since": line.status_since.isoformat(),
        }
        for line in await lines.stuck(vendor_id=caller.vendor_id, limit=body.limit)
    ]  # fmt: skip


async def retry_enrollment(body: RetryEnrollment, caller: Caller, lines: LinesDep, temporal: TemporalDep) -> dict[str, str]:
    """Signals the stuck line's workflow to try its failed step again."""
    line = await lines.find(body.enrollment_id, vendor_id=caller.vendor_id)
    if line is None:
        raise refuse("No customer found against this enrolment ID", rest_status=404)
    if line.status != "STUCK":
        raise refuse(f"Enrollment {body.enrollment_id} is not stuck (status {line.status})", rest_status=409)
    async with outside_system("The workflow engine"):
        await retry_line(temporal.require(), body.enrollment_id)
    return {"enrollment_id": body.enrollment_id, "status": "RETRYING"}
