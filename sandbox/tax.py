"""Carrier tax API stand-in: quote a tax, register a calculation, then mark it collected.

A quote answers what a calculation for the same state and amount would register (TAX_AMOUNT_CENTS,
RATE_BPS, TAX_BREAKUP) and stores nothing. A calculation moves PENDING_COLLECTION →
COLLECTED_TEMPORARY → COLLECTED_FINAL (temporary may be skipped). Marking it again with the same status
returns the same reference; going back from final to temporary is refused.
"""

import time
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Header
from pydantic import BaseModel, Field

from sandbox.deps import IdempotencyKey, StoreDep
from sandbox.faults import add_latency, maybe_fail
from sandbox.identifiers import random_digits
from sandbox.store import Row, Store

router = APIRouter(prefix="/carrier/tax", dependencies=[Depends(add_latency), Depends(maybe_fail)])

# Approximate state-level sales tax rates in basis points (1 bps = 0.01 %). Good enough for a stand-in:
# the point is integer arithmetic and a different number per state, not tax advice.
# A grid reads better than one state per line, so the formatter leaves it alone.
# fmt: off
STATE_RATE_BPS: dict[str, int] = {
    "AL": 400, "AK": 0, "AZ": 560, "AR": 650, "CA": 725, "CO": 290, "CT": 635, "DE": 0, "DC": 600,
    "FL": 600, "GA": 400, "HI": 400, "ID": 600, "IL": 625, "IN": 700, "IA": 600, "KS": 650, "KY": 600,
    "LA": 500, "ME": 550, "MD": 600, "MA": 625, "MI": 600, "MN": 688, "MS": 700, "MO": 423, "MT": 0,
    "NE": 550, "NV": 685, "NH": 0, "NJ": 663, "NM": 488, "NY": 400, "NC": 475, "ND": 500, "OH": 575,
    "OK": 450, "OR": 0, "PA": 600, "RI": 700, "SC": 600, "SD": 420, "TN": 700, "TX": 625, "UT": 610,
    "VT": 600, "VA": 530, "WA": 650, "WV": 600, "WI": 500, "WY": 400, "PR": 1050, "VI": 0, "GU": 0,
    "AS": 0, "MP": 0,
}
# fmt: on
NOT_FOUND = {"STATUSCODE": "404", "DESCRIPTION": "Calculation not found"}
REGISTRATIONS = "carrier/tax/calculations"  # the idempotency records' endpoint: one answer per key


class TaxCalculationRequest(BaseModel):
    """Tax on one payment amount in one state."""

    vendor_id: str
    state: str
    amount_cents: int = Field(ge=0)


class CollectRequest(BaseModel):
    """Mark a calculation's tax as collected."""

    vendor_id: str
    calc_id: str
    iccid: str | None = None
    status: Literal["temporary", "final"]


def tax_cents(amount_cents: int, rate_bps: int) -> int:
    """amount × rate, rounded half up to whole cents, in integers only."""
    return (amount_cents * rate_bps + 5_000) // 10_000


def rate_for(state: str) -> int:
    """The state's rate in basis points; unknown jurisdictions owe nothing rather than failing the sale."""
    return STATE_RATE_BPS.get(state.upper(), 0)


def breakup(tax: int) -> list[Row]:
    """The tax by name; its items add up to the tax exactly (one state sales tax here)."""
    return [{"TAX_NAME": "State sales tax", "TAX_AMOUNT_CENTS": tax}]


@router.post("/calculations")
async def calculate(body: TaxCalculationRequest, key: IdempotencyKey, store: StoreDep) -> dict[str, Any]:
    """Register a calculation pending collection; the same key returns the same CALCID."""
    return store.idempotent(endpoint=REGISTRATIONS, key=key, compute=lambda: _calculate(store, body))


@router.post("/quote")
async def quote(body: TaxCalculationRequest) -> dict[str, Any]:
    """The tax a calculation for this amount would register, by name; registers nothing."""
    rate = rate_for(body.state)
    tax = tax_cents(body.amount_cents, rate)
    return {"STATUSCODE": "00", "TAX_AMOUNT_CENTS": tax, "RATE_BPS": rate, "TAX_BREAKUP": breakup(tax)}


def _calculate(store: Store, body: TaxCalculationRequest) -> Row:
    rate = rate_for(body.state)
    calc: Row = {
        "calc_id": _new_calc_id(store),
        "vendor_id": body.vendor_id,
        "state": body.state.upper(),
        "amount_cents": body.amount_cents,
        "tax_cents": tax_cents(body.amount_cents, rate),
        "rate_bps": rate,
        "status": "PENDING_COLLECTION",
        "created_at": time.time(),
    }
    store.add_tax_calc(calc)
    return {
        "STATUSCODE": "00",
        "CALCID": calc["calc_id"],
        "TAX_AMOUNT_CENTS": calc["tax_cents"],
        "RATE_BPS": rate,
        "TAX_BREAKUP": breakup(calc["tax_cents"]),
        "STATUS": calc["status"],
    }


def _new_calc_id(store: Store) -> str:
    while True:
        calc_id = "TX" + random_digits(10)
        if store.get_tax_calc(calc_id) is None:
            return calc_id


@router.post("/collect")
async def collect(
    body: CollectRequest, store: StoreDep, key: Annotated[str | None, Header(alias="Idempotency-Key")] = None
) -> dict[str, Any]:
    """Mark collected; naturally idempotent, since a repeat returns the stored reference. With an
    Idempotency-Key (optional here, for callers of old), a repeat returns the first answer whatever happened since."""
    if key:
        return store.idempotent(endpoint="carrier/tax/collect", key=key, compute=lambda: _collect(body, store))
    return _collect(body, store)


def _collect(body: CollectRequest, store: Store) -> dict[str, Any]:
    with store.transaction():
        calc = store.get_tax_calc(body.calc_id)
        if calc is None or calc["vendor_id"] != body.vendor_id:
            return NOT_FOUND
        if body.status == "temporary" and calc["status"] == "COLLECTED_FINAL":
            return {"STATUSCODE": "409", "DESCRIPTION": "Calculation already final"}
        ref_column = f"ref_{body.status}"
        reference = calc[ref_column] or random_digits(12)
        status = f"COLLECTED_{body.status.upper()}"
        iccid = body.iccid or calc["iccid"]
        store.update_tax_calc(calc["calc_id"], {"status": status, ref_column: reference, "iccid": iccid})
    return {
        "STATUSCODE": "00",
        "DESCRIPTION": "Tax collected",
        "CALCID": calc["calc_id"],
        "REFERENCENUMBER": reference,
        "STATUS": status,
    }
