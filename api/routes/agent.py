"""`/agent`: update_location_coordinate, check_signature and save_signature."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends, Request
from fastapi.responses import JSONResponse

from api.envelope import success
from api.gate import gate
from models.envelope import Envelope
from models.requests.agents import AgentAction, CheckSignature, SaveSignature, UpdateLocationCoordinate
from services import agent as operations
from services.context import Context

router = APIRouter(tags=["agent"])
AgentBody = Annotated[AgentAction, Body(discriminator="action")]
AgentContext = Annotated[Context, Depends(gate("agent"))]


@router.post("/agent", response_model=Envelope)
async def agent(request: Request, body: AgentBody, ctx: AgentContext) -> JSONResponse:
    """Agent location and signature operations."""
    match body:
        case UpdateLocationCoordinate():
            await operations.update_location_coordinate(body=body, ctx=ctx)
            return success(request)
        case SaveSignature():
            return success(request, await operations.save_signature(body=body, ctx=ctx))
        case CheckSignature():
            await operations.check_signature(body=body, ctx=ctx)
            return success(request, msg="Signature verified")
