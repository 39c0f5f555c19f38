"""The enrollment domain's supporting operations: check_service_availability (issues enrollment ids), plan_list
and company_carrier_list."""

from __future__ import annotations

import base64
import secrets

from sqlmodel import col, select

from dispatch.actions import action
from dispatch.context import Context
from dispatch.lookups import run_lookup
from models.answers.enrollment import AVAILABILITY, CARRIERS, PLANS, Availability, CarrierItem, PlanItem
from models.errors import refuse
from models.geography import city_of_zip, state_of_zip
from models.messages.enrollment import CarrierListQuery
from models.refusals import PLANS_NOT_FOUND
from models.requests.enrollment import CheckServiceAvailability, CompanyCarrierList, PlanList
from models.tables.enrollment import Enrollment, Plan
from workflows.enrollment.lookups import CarrierListWorkflow
from workflows.ids import lookup_workflow_id

CARRIERS_SOLD = ["TMB", "ATT", "VER"]
NOT_SERVED = "We do not provide services at the users Zip Code"


def new_enrollment_id() -> str:
    """'E' and 80 random bits in base32: unguessable, so ids cannot be enumerated."""
    return "E" + base64.b32encode(secrets.token_bytes(10)).decode()


@action("enrollment", example=AVAILABILITY)
async def check_service_availability(*, body: CheckServiceAvailability, ctx: Context) -> Availability:
    """Issues a new, unused enrollment id for a ZIP the service covers, with its city and state as USPS names
    them."""
    state = state_of_zip(body.zip_code)
    if state is None:
        raise refuse(NOT_SERVED)
    slot = Enrollment(
        enrollment_id=new_enrollment_id(),
        vendor_id=ctx.caller.vendor_id,
        zip_code=body.zip_code,
        state=state,
        enrollment_type=body.enrollment_type,
        issued_by=ctx.caller.agent_username,
    )
    async with ctx.uow.transaction() as session:
        session.add(slot)
    return Availability(
        enrollment_id=slot.enrollment_id,
        zip_code=body.zip_code,
        city=city_of_zip(body.zip_code),
        state=state,
        carriers=CARRIERS_SOLD,
    )


@action("plan", example=PLANS)
async def plan_list(*, body: PlanList, ctx: Context) -> list[PlanItem]:
    """The plans a channel can sell: every active plan, one plan, or those sold in a ZIP (every covered ZIP sells
    them all)."""
    if body.zip_code is not None and state_of_zip(body.zip_code) is None:
        raise refuse(NOT_SERVED)
    query = select(Plan).where(col(Plan.active)).order_by(col(Plan.plan_id))
    if body.plan_id is not None:
        query = query.where(Plan.plan_id == int(body.plan_id))
    async with ctx.uow.transaction() as session:
        plans = (await session.exec(query)).all()
    if not plans:
        raise refuse(PLANS_NOT_FOUND, rest_status=404)
    return [PlanItem.of(plan) for plan in plans]


@action("enrollment", example=CARRIERS)
async def company_carrier_list(*, body: CompanyCarrierList, ctx: Context) -> list[CarrierItem]:
    """The carriers the company sells on, with the carrier's own numeric ids (query_portin takes either)."""
    query = CarrierListQuery(ctx.caller.vendor_code, budget_seconds=ctx.settings.systems.lookup_budget_seconds)
    found = await run_lookup(
        ctx, CarrierListWorkflow.run, query, workflow_id=lookup_workflow_id("carriers", ctx.request_id)
    )
    return [
        CarrierItem(carrier_id=c.carrier_id, carrier=c.carrier, carrier_name=c.carrier_name) for c in found.carriers
    ]
