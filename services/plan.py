"""`/plan`: plan_list, the supporting operation that lists the plans a channel can sell."""

from __future__ import annotations

from typing import Any

from sqlmodel import col, select

from models.errors import refuse
from models.geography import state_of_zip
from models.requests.enrollment import PlanList
from models.tables.enrollment import Plan
from services.context import Context
from services.enrollment import NOT_SERVED


async def plan_list(*, body: PlanList, ctx: Context) -> list[dict[str, Any]]:
    """Active plans, optionally one plan, or the plans sold in a ZIP (every covered ZIP sells them all)."""
    if body.zip_code is not None and state_of_zip(body.zip_code) is None:
        raise refuse(NOT_SERVED)
    query = select(Plan).where(col(Plan.active)).order_by(col(Plan.plan_id))
    if body.plan_id is not None:
        query = query.where(Plan.plan_id == int(body.plan_id))
    async with ctx.uow.transaction() as session:
        plans = (await session.exec(query)).all()
    if not plans:
        raise refuse("Plans not found", rest_status=404)
    return [plan_entry(plan) for plan in plans]


def plan_entry(plan: Plan) -> dict[str, Any]:
    """One plan as channels of the original read it: allowances as numbers (0 and a Y flag when unlimited)."""
    price = f"{plan.price_cents / 100:.2f}"
    return {
        "plan_id": str(plan.plan_id), "plan_code": plan.plan_code, "plan_name": plan.name, "plan_price": price,
        # No fees are added to a plan's price; the tax depends on the customer's state (payment_details).
        "total_plan_price": price, "carrier": plan.carrier,
        "talk": plan.talk_minutes or 0, "text": plan.text_messages or 0, "data": plan.data_mb or 0,
        "minute_unlimited": _unlimited(plan.talk_minutes), "text_unlimited": _unlimited(plan.text_messages),
        "data_unlimited": _unlimited(plan.data_mb), "display_features_description": plan.description,
    }  # fmt: skip


def _unlimited(allowance: int | None) -> str:
    return "Y" if allowance is None else "N"
