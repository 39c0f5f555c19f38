"""The payment gateway. Charges are made from the API process, not an activity: card numbers and CVVs must
never enter workflow history, where they would be stored (PCI DSS 3.2, 3.3). Looking a charge up and voiding
it need no card data: the payment guard's activity does those."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from adapters.http import Body, JsonService, Wire


@dataclass(frozen=True)
class Charge:
    approved: bool
    transaction_id: str | None = None
    payment_token: str | None = None
    brand: str | None = None
    last4: str | None = None
    reason: str | None = None

    def saved_card(self) -> dict[str, str]:
        """The card to keep on file for an approved charge: the gateway's token, brand and last four."""
        return {"token": self.payment_token or "", "brand": self.brand or "", "last4": self.last4 or ""}


@dataclass(frozen=True, repr=False)
class Card:
    card_number: str
    exp_month: str
    exp_year: str
    cvv: str
    name_on_card: str
    zip: str

    def __repr__(self) -> str:
        return f"Card(****{self.card_number[-4:]})"


class _Charge(Wire):
    status: str  # approved, declined, voided; unknown: the gateway never saw it
    reason: str | None = None
    transaction_id: str | None = None
    payment_token: str | None = None
    brand: str | None = None
    last4: str | None = None

    def charge(self) -> Charge:
        if self.status != "approved":
            return Charge(approved=False, reason=self.reason or self.status or "declined")
        return Charge(True, self.transaction_id, self.payment_token, self.brand, self.last4)


class _CardCharge(Wire):
    card_number: str
    exp_month: str
    exp_year: str
    cvv: str
    name_on_card: str
    amount_cents: int
    zip: str

    def __repr__(self) -> str:
        return "_CardCharge(…)"


class PaymentGateway(JsonService):
    system = "The payment gateway"

    async def charge(self, card: Card, amount_cents: int, *, key: str) -> Charge:
        body = _CardCharge(**asdict(card), amount_cents=amount_cents)
        return (await self.post("/charges", body, _Charge, key=key)).charge()

    async def lookup(self, key: str) -> Charge | None:
        """What became of the charge made with `key`; None when the gateway never saw it."""
        return await self._known("/charges/lookup", key)

    async def void(self, key: str) -> Charge | None:
        """Gives an approved charge back (a repeat changes nothing); None when the gateway never saw it."""
        return await self._known("/charges/void", key)

    async def _known(self, path: str, key: str) -> Charge | None:
        answer = await self.post(path, Body.model_validate({"key": key}), _Charge)
        return None if answer.status == "unknown" else answer.charge()
