"""Payment before activation (issue 19, finding 6): an `invoice_number` given at creation must be a settled
invoice of the vendor for the order's parent or one of its lines; and a vendor that requires payment
(`lineup vendor set --require-payment`) activates a line only when the account's settled payments cover its
plan: each plan paid once per line on it (a plan listed twice pays for two lines)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from models.errors import LineupError, refuse
from models.requests.enrollment import CreateMultiline
from models.statuses import LineStatus
from models.tables.auth import Vendor
from models.tables.enrollment import Line
from persistence.payment import account_plans, paid_plans, settled_invoice
from persistence.transaction import DbSession

INVALID_INVOICE = "Invalid invoice number"
# Lines that hold no paid plan: waiting for activation, or a port that ended without the number.
NOT_ACTIVATED = frozenset(
    {
        LineStatus.WAITING_ACTIVATION,
        LineStatus.PORT_REJECTED,
        LineStatus.PORT_CANCELLED,
        LineStatus.PORT_ABANDONED,
    }
)


def unpaid(plan_id: int) -> str:
    return f"No settled payment covers plan {plan_id} of this line; make_payment first"


async def payment_problems(
    session: DbSession, body: CreateMultiline, *, vendor_id: int, require_payment: bool
) -> list[str]:
    """The request's invoice, and, when the vendor requires it, payment for every line activated now."""
    ids = [line.enrollment_id for line in body.lines]
    found: list[str] = []
    if body.invoice_number is not None:
        family = {body.parent_enrollment_id, *ids}
        if not await settled_invoice(session, vendor_id, body.invoice_number, family):
            found.append(INVALID_INVOICE)
    if require_payment:
        activating = {line.enrollment_id: int(line.plan_id) for line in body.lines if not line.later}
        uncovered = await _uncovered(session, vendor_id, body.parent_enrollment_id, activating)
        found += [
            f"Line {number}: {unpaid(plan)}"
            for number, line in enumerate(body.lines, start=1)
            if line.enrollment_id in activating and (plan := int(line.plan_id)) in uncovered
        ]
    return found


async def activation_refusal(session: DbSession, line: Line) -> LineupError | None:
    """The refusal (402) of a line waiting for activation that may not activate yet: its vendor requires payment
    and the account's settled payments do not cover its plan. None: it may."""
    vendor = await session.get(Vendor, line.vendor_id)
    if vendor is None or not vendor.require_payment:
        return None
    uncovered = await _uncovered(session, line.vendor_id, line.parent_enrollment_id, {line.enrollment_id: line.plan_id})
    return refuse(unpaid(line.plan_id), rest_status=402) if line.plan_id in uncovered else None


async def _uncovered(session: DbSession, vendor_id: int, parent: str, activating: dict[str, int]) -> set[int]:
    """Plans the account's settled payments do not cover once `activating` (enrollment id → plan) activate too:
    lines already active or on their way count first, so a payment is never spent twice."""
    account = await account_plans(session, vendor_id, parent)
    earlier = [plan for eid, plan, status in account if eid not in activating and status not in NOT_ACTIVATED]
    family = {parent, *activating, *(eid for eid, _plan, _status in account)}
    paid = Counter(await paid_plans(session, vendor_id, family))
    needed = Counter(_plans(earlier, activating.values()))
    return {plan for plan, count in needed.items() if count > paid[plan]}


def _plans(*groups: Iterable[int]) -> list[int]:
    return [plan for group in groups for plan in group]
