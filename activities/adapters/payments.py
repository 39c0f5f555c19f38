"""The payment gateway. Called from the API process, not an activity: card numbers and CVVs must never
enter workflow history, where they would be stored (PCI DSS 3.2, 3.3)."""

from __future__ import annotations

from dataclasses import dataclass

from activities.adapters.http import JsonService


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
        answer = await self.post("/charges", body, key=key)
        if answer.get("status") != "approved":
            return Charge(approved=False, reason=str(answer.get("reason", "declined")))
        return Charge(
            approved=True,
            transaction_id=answer["transaction_id"],
            payment_token=answer["payment_token"],
            brand=answer["brand"],
            last4=answer["last4"],
        )
