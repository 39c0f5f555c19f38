"""What answers say of a created line beside its record (decisions.md): the customer's account PIN and, for an
eSIM line, its profile. Both are sealed in the line's row and read here, never from a workflow (whose history
would keep them in the clear); neither is ever logged."""

from __future__ import annotations

import secrets
from collections.abc import Collection, Mapping
from typing import NamedTuple

from dispatch.context import Context
from models.answers.enrollment import EsimProfile, LineEntry
from models.documents import EsimDocument
from models.messages.enrollment import LinePlan
from persistence.enrollment import give_pin, sealed_extras

PIN_DIGITS = 4


def new_pin() -> str:
    """A customer's account PIN when the channel gives none: 4 random digits."""
    return f"{secrets.randbelow(10**PIN_DIGITS):0{PIN_DIGITS}d}"


class Extras(NamedTuple):
    pin: str
    esim: EsimProfile | None


async def line_extras(ctx: Context, enrollment_ids: Collection[str]) -> dict[str, Extras]:
    """Each line's PIN and eSIM profile. A line made before every customer had a PIN gets one now, once."""
    async with ctx.uow.transaction() as session:
        sealed = await sealed_extras(session, enrollment_ids)
        without = [enrollment_id for enrollment_id, (pin, _) in sealed.items() if pin is None]
        for enrollment_id in without:
            await give_pin(session, enrollment_id, ctx.cipher.encrypt(new_pin()))
        if without:
            sealed = await sealed_extras(session, enrollment_ids)
    found = {}
    for enrollment_id, (pin, profile) in sealed.items():
        assert pin is not None  # given above
        esim = None
        if profile is not None:
            opened = ctx.cipher.open(profile, EsimDocument)
            esim = EsimProfile.of(opened["iccid"], opened["activation_code"])
        found[enrollment_id] = Extras(ctx.cipher.decrypt(pin), esim)
    return found


async def line_entries(
    ctx: Context, plans: list[LinePlan], *, invoice_number: str | None, pins: Mapping[str, str] | None = None
) -> list[LineEntry]:
    """The entries of customer creation's answer (activate_line's too), one per line, in the plans' order.
    `pins`: those intake just gave (no read for them unless the line is an eSIM's, whose profile is needed)."""
    pins = pins or {}
    known = {plan.enrollment_id: Extras(pins[plan.enrollment_id], None) for plan in plans if plan.enrollment_id in pins}
    wanted = [plan.enrollment_id for plan in plans if plan.enrollment_id not in known or plan.esim]
    extras = {**known, **(await line_extras(ctx, wanted) if wanted else {})}
    return [
        LineEntry.of(plan, invoice_number, pin=extras[plan.enrollment_id].pin, esim=extras[plan.enrollment_id].esim)
        for plan in plans
    ]
