"""Repository of the carrier's tax as Lineup holds it (issue 27, finding 15): the rate last quoted for one month of
a plan in a state, and the calculations quoted from those rates while the carrier's tax service was down, until
the carrier has registered them."""

from __future__ import annotations

import json
from collections.abc import Iterable

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select

from models.clock import utcnow
from models.messages.payment import TaxItem
from models.tables.auth import Vendor
from models.tables.payment import TaxRate, TaxRegistration
from persistence.engine import Database
from persistence.transaction import DbSession


async def hold(db: Database, state: str, rates: Iterable[tuple[int, int, int, list[TaxItem]]]) -> None:
    """Keeps (plan id, price, tax, items) as the rates of `state` now; best effort: two payments holding the same
    plan's rate at once keep either's (both the carrier's), and nothing here ever fails a payment."""
    try:
        async with db.transaction() as session:
            for plan_id, amount, tax, items in rates:
                breakup = json.dumps([[item.name, item.cents] for item in items])
                row = await session.get(TaxRate, (state, plan_id))
                if row is None:
                    row = TaxRate(state=state, plan_id=plan_id, amount_cents=amount, tax_cents=tax, items=breakup)
                row.amount_cents, row.tax_cents, row.items, row.quoted_at = amount, tax, breakup, utcnow()
                session.add(row)
    except IntegrityError:
        return


async def held(session: DbSession, state: str, plan_ids: set[int]) -> dict[int, TaxRate]:
    """The rates held for these plans in `state` (a plan without one is missing from the answer)."""
    query = select(TaxRate).where(col(TaxRate.state) == state, col(TaxRate.plan_id).in_(plan_ids))
    return {rate.plan_id: rate for rate in (await session.exec(query)).all()}


def items_of(rate: TaxRate) -> list[TaxItem]:
    return [TaxItem(str(name), int(cents)) for name, cents in json.loads(rate.items)]


async def add_registration(session: DbSession, registration: TaxRegistration) -> TaxRegistration:
    """The registration waiting for the carrier; the one already there for its calc id (a repeated payment)."""
    if (found := await session.get(TaxRegistration, registration.calc_id)) is not None:
        return found
    session.add(registration)
    await session.flush()
    return registration


async def waiting_registration(session: DbSession, calc_id: str) -> tuple[TaxRegistration, str] | None:
    """A calculation quoted from held rates, with its vendor's code (what the carrier knows it by); None for a
    calculation the carrier registered itself (its id is the carrier's)."""
    query = select(TaxRegistration, Vendor.code).join(Vendor, col(Vendor.id) == col(TaxRegistration.vendor_id))
    found = (await session.exec(query.where(col(TaxRegistration.calc_id) == calc_id))).first()
    return (found[0], found[1]) if found is not None else None


async def registered(session: DbSession, calc_id: str, *, carrier_calc_id: str, carrier_tax_cents: int) -> None:
    """The carrier took it: its id for the calculation (the first answer kept; a repeat gets the same one)."""
    await session.execute(
        update(TaxRegistration)
        .where(col(TaxRegistration.calc_id) == calc_id, col(TaxRegistration.carrier_calc_id).is_(None))
        .values(carrier_calc_id=carrier_calc_id, carrier_tax_cents=carrier_tax_cents, registered_at=utcnow())
    )
