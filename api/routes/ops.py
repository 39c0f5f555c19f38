"""`/ops`: list_stuck_enrollments, retry_enrollment (role `support`)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends, Request
from fastapi.responses import JSONResponse

from api.envelope import success
from api.gate import gate
from models.envelope import Envelope
from models.requests.support import ListStuckEnrollments, OpsAction, RetryEnrollment
from services import ops as operations
from services.context import Context

router = APIRouter(tags=["ops"])
OpsBody = Annotated[OpsAction, Body(discriminator="action")]
OpsContext = Annotated[Context, Depends(gate("ops"))]


@router.post("/ops", response_model=Envelope)
async def ops(request: Request, body: OpsBody, ctx: OpsContext) -> JSONResponse:
    """Support operations."""
    match body:
        case ListStuckEnrollments():
            return success(request, await operations.list_stuck_enrollments(body=body, ctx=ctx))
        case RetryEnrollment():
            return success(request, await operations.retry_enrollment(body=body, ctx=ctx))
