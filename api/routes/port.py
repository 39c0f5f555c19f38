"""`/port`: query_portin, update_portin, validate_portin."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends, Request
from fastapi.responses import JSONResponse

from api.envelope import success
from api.gate import gate
from models.envelope import Envelope
from models.requests.porting import PortAction, QueryPortin, UpdatePortin, ValidatePortin
from services import port as operations
from services.context import Context

router = APIRouter(tags=["port"])
PortBody = Annotated[PortAction, Body(discriminator="action")]
PortContext = Annotated[Context, Depends(gate("port"))]


@router.post("/port", response_model=Envelope)
async def port(request: Request, body: PortBody, ctx: PortContext) -> JSONResponse:
    """Port-in status, corrections and eligibility."""
    match body:
        case QueryPortin():
            answer = await operations.query_portin(body=body, ctx=ctx)
            return success(request, answer.data, msg=answer.msg)
        case UpdatePortin():
            return success(request, await operations.update_portin(body=body, ctx=ctx))
        case ValidatePortin():
            return success(request, await operations.validate_portin(body=body, ctx=ctx))
