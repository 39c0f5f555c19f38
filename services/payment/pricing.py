"""The figures of a payment for one plan or a list of them (decisions.md, "plan_id lists"): each plan's price
times its months, summed; the tax is the carrier's on that sum, so payment_details quotes to the cent what
make_payment then charges. A list's tax is shown per plan as shares of that one tax, which add up exactly."""

from __future__ import annotations

from models.answers.payment import DetailedPlan, TaxItem
from models.messages.payment import TaxEstimate
from models.plans import PlanUnit, as_text
from models.requests.payment import MakePayment
from models.tables.enrollment import Plan


def money(cents: int) -> str:
    return f"{cents / 100:.2f}"


def price_cents(units: tuple[PlanUnit, ...], plans: dict[int, Plan]) -> int:
    return sum(plans[unit.plan_id].price_cents * unit.months for unit in units)


def plan_key(body: MakePayment) -> str:
    """The plans' part of a payment's default request key: one plan for a month keeps its plain id (the key
    payments made before lists had), anything else its stored text."""
    units = body.plan_id
    return str(units[0].plan_id) if units == (PlanUnit(units[0].plan_id, 1),) else as_text(units)


def shares(total: int, weights: list[int]) -> list[int]:
    """`total` split in proportion to `weights`, in whole cents that add up to `total` (the last takes the rest)."""
    whole = sum(weights)
    if whole == 0:
        return [total] + [0] * (len(weights) - 1)
    parts = [total * weight // whole for weight in weights[:-1]]
    return [*parts, total - sum(parts)]


def detailed_plans(units: tuple[PlanUnit, ...], plans: dict[int, Plan], estimate: TaxEstimate) -> list[DetailedPlan]:
    """Each plan of the payment with its price, months and its share of every tax item."""
    weights = [plans[unit.plan_id].price_cents * unit.months for unit in units]
    per_item = [shares(item.cents, weights) for item in estimate.items]
    return [
        DetailedPlan(
            plan_id=str(unit.plan_id),
            plan_name=plans[unit.plan_id].name,
            plan_price=money(plans[unit.plan_id].price_cents),
            no_of_months=str(unit.months),
            tax_breakup=[
                TaxItem(tax_name=item.name, tax_amount=money(split[index]))
                for item, split in zip(estimate.items, per_item, strict=True)
            ],
        )
        for index, unit in enumerate(units)
    ]
