"""Payment gateway stand-in: card charges that approve or decline from the card data alone.

Checks, first failing one answers: Luhn-invalid number, then expiry (valid through the end of the
expiry month), then CVV 000. The full card number and the CVV are used only while answering: the
idempotency record holds the answer, which carries a token, the brand and the last four digits.

A merchant that lost a charge's answer (it crashed right after charging) looks it up by the idempotency
key, and voids it if it cannot complete the sale.
"""

import secrets
from datetime import date
from typing import Any

from fastapi import APIRouter, Depends
from pydantic import BaseModel, Field

from sandbox.deps import IdempotencyKey, StoreDep
from sandbox.faults import add_latency
from sandbox.identifiers import luhn_valid

# The gateway is modelled as always up: only latency applies here, faults are for carrier and NLAD.
router = APIRouter(prefix="/payments", dependencies=[Depends(add_latency)])


class ChargeRequest(BaseModel):
    """Charge a card once."""

    card_number: str
    exp_month: str
    exp_year: str
    cvv: str
    name_on_card: str | None = None
    amount_cents: int = Field(gt=0)
    zip: str | None = None


def card_brand(number: str) -> str:
    """Brand from the card's issuer identification number (IIN) prefix."""
    if number.startswith("4"):
        return "Visa"
    if number[:2] in {"34", "37"}:
        return "American Express"
    if 51 <= int(number[:2]) <= 55 or 2221 <= int(number[:4]) <= 2720:
        return "Mastercard"
    if number.startswith(("6011", "65")) or 644 <= int(number[:3]) <= 649:
        return "Discover"
    return "Card"


def is_expired(exp_month: str, exp_year: str, *, today: date) -> bool:
    """True once the expiry month is over; an unreadable expiry counts as expired."""
    if not (exp_month.isdigit() and exp_year.isdigit() and 1 <= int(exp_month) <= 12):
        return True
    return (int(exp_year), int(exp_month)) < (today.year, today.month)


def decline_reason(body: ChargeRequest, *, today: date) -> str | None:
    """Why the issuer would decline this charge, or None to approve."""
    if not luhn_valid(body.card_number) or not 12 <= len(body.card_number) <= 19:
        return "Invalid card number"
    if is_expired(body.exp_month, body.exp_year, today=today):
        return "Card expired"
    if body.cvv == "000":
        return "CVV mismatch"
    return None


def charge_answer(body: ChargeRequest, *, today: date) -> dict[str, Any]:
    """The gateway's answer; it never contains the full card number or the CVV."""
    reason = decline_reason(body, today=today)
    if reason is not None:
        return {"status": "declined", "reason": reason}
    return {
        "status": "approved",
        "transaction_id": "txn_" + secrets.token_hex(12),
        "payment_token": "tok_" + secrets.token_hex(16),
        "brand": card_brand(body.card_number),
        "last4": body.card_number[-4:],
        "amount_cents": body.amount_cents,
    }


CHARGES = "payments/charges"


class ChargeReference(BaseModel):
    """A charge named by the idempotency key it was made with."""

    key: str = Field(min_length=1, max_length=200)


@router.post("/charges")
async def charge(body: ChargeRequest, key: IdempotencyKey, store: StoreDep) -> dict[str, Any]:
    """Charge a card; the same key returns the first answer and charges nothing again."""
    return store.idempotent(endpoint=CHARGES, key=key, compute=lambda: charge_answer(body, today=date.today()))


@router.post("/charges/lookup")
async def lookup(body: ChargeReference, store: StoreDep) -> dict[str, Any]:
    """What became of the charge made with this key: its answer, or `unknown` if none was ever made (a
    merchant that lost the answer asks this instead of charging again)."""
    return store.stored_answer(endpoint=CHARGES, key=body.key) or {"status": "unknown"}


@router.post("/charges/void")
async def void(body: ChargeReference, store: StoreDep) -> dict[str, Any]:
    """Voids an approved charge (the money goes back); a declined, voided or unknown one answers as it is.
    Repeating it changes nothing."""
    with store.transaction():
        found = store.stored_answer(endpoint=CHARGES, key=body.key)
        if found is None or found.get("status") != "approved":
            return found or {"status": "unknown"}
        voided = {**found, "status": "voided"}
        store.replace_answer(endpoint=CHARGES, key=body.key, answer=voided)
    return voided
