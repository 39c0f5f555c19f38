"""The payment gateway. Charges are made from the API process, not an activity: card numbers and CVVs must
never enter workflow history, where they would be stored (PCI DSS 3.2, 3.3). Looking a charge up and voiding
it need no card data: the payment guard's activity does those."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from adapters.http import JsonService


@dataclass(frozen=True)
class Charge:
    approved: bool
    transaction_id: str | None = None
    payment_token: str | None = None
    brand: str | None = None
    last4: str | None = None
    reason: str | None = None


@dataclass(frozen=True, repr=False)
class Card:
    number: str
    exp_month: str
    exp_year: str
    cvv: str
    name: str
    zip: str

    def __repr__(self) -> str:
        return f"Card(****{self.number[-4:]})"


class PaymentGateway(JsonService):
    system = "The payment gateway"

    async def charge(self, card: Card, amount_cents: int, *, key: str) -> Charge:
        body = {
            "card_number": card.number, "exp_month": card.exp_month, "exp_year": card.exp_year, "cvv": card.cvv,
            "name_on_card": card.name, "amount_cents": amount_cents, "zip": card.zip,
        }  # fmt: skip
        return _charge_of(await self.post("/charges", body, key=key))

    async def lookup(self, key: str) -> Charge | None:
        """What became of the charge made with `key`; None when the gateway never saw it."""
        answer = await self.post("/charges/lookup", {"key": key})
        return None if answer.get("status") == "unknown" else _charge_of(answer)

    async def void(self, key: str) -> Charge | None:
        """Gives an approved charge back (a repeat changes nothing); None when the gateway never saw it."""
        answer = await self.post("/charges/void", {"key": key})
        return None if answer.get("status") == "unknown" else _charge_of(answer)


def _charge_of(answer: dict[str, Any]) -> Charge:
    if answer.get("status") != "approved":
        return Charge(approved=False, reason=str(answer.get("reason") or answer.get("status", "declined")))
    return Charge(
        approved=True, transaction_id=answer["transaction_id"], payment_token=answer["payment_token"],
        brand=answer["brand"], last4=answer["last4"],
    )  # fmt: skip
