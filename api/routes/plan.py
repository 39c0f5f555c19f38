"""`/plan` plan_list (supporting operation)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Request
from fastapi.responses import JSONResponse
from sqlmodel import col, select

from api.deps import SessionsDep
from api.envelope import success
from api.errors import refuse
from api.gate import Caller, gate
from api.routes.enrollment import NOT_SERVED
from models.envelope import Envelope
from models.geography import state_of_zip
from models.requests.enrollment import PlanAction, PlanList
from models.tables.catalog import Plan

router = APIRouter(tags=["plan"])
PlanBody = Annotated[PlanAction, Body(discriminator="action")]
PlanCaller = Annotated[Caller, Depends(gate("plan"))]


@router.post("/plan", response_model=Envelope)
async def plan(request: Request, body: PlanBody, _: PlanCaller, sessions: SessionsDep) -> JSONResponse:
    """The plan catalogue."""
    match body:
        case PlanList():
            return success(request, await plan_list(body, sessions))


async def plan_list(body: PlanList, sessions: SessionsDep) -> list[dict[str, Any]]:
    """Active plans, optionally one plan, or the plans sold in a ZIP (every covered ZIP sells them all)."""
    if body.zip_code is not None and state_of_zip(body.zip_code) is None:
        raise refuse(NOT_SERVED)
    query = select(Plan).where(col(Plan.active)).order_by(col(Plan.plan_id))
    if body.plan_id is not None:
        query = query.where(Plan.plan_id == int(body.plan_id))
    async with sessions() as session:
        plans = (await session.exec(query)).all()
    if not plans:
        raise refuse("Plans not found", rest_status=404)
    return [
        {
            "plan_id": str(p.plan_id), "plan_name": p.name, "plan_price": f"{p.price_cents / 100:.2f}",
            "carrier": p.carrier, "talk": p.talk, "text": p.text, "data": p.data,
        }
        for p in plans
    ]  # fmt: skip
