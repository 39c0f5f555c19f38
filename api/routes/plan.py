"""`/plan`: plan_list (supporting operation)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends, Request
from fastapi.responses import JSONResponse

from api.envelope import success
from api.gate import gate
from models.envelope import Envelope
from models.requests.enrollment import PlanAction, PlanList
from services import plan as operations
from services.context import Context

router = APIRouter(tags=["plan"])
PlanBody = Annotated[PlanAction, Body(discriminator="action")]
PlanContext = Annotated[Context, Depends(gate("plan"))]


@router.post("/plan", response_model=Envelope)
async def plan(request: Request, body: PlanBody, ctx: PlanContext) -> JSONResponse:
    """The plan catalogue."""
    match body:
        case PlanList():
            return success(request, await operations.plan_list(body=body, ctx=ctx))
