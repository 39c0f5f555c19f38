"""`/payment`: make_payment and payment_details (supporting operations) and update_tax_calculation_status_plum."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Annotated, Literal

from pydantic import AliasChoices, Field, model_validator
from pydantic.fields import FieldInfo
from pydantic_core import PydanticCustomError

from models.plans import PlanIds
from models.requests.base import ActionRequest
from models.requests.conditional import ConditionalFields, sent
from models.types import (
    AddressLine,
    Alnum,
    CardHolder,
    CardNumber,
    City,
    Cvv,
    Iccid18to22,
    Month,
    ProcessorReference,
    State,
    Text32,
    Text64,
    Year4,
    YesNo,
    Zip5,
)

# Lineup's name, then the original service's (decisions.md, "make_payment names").
NAMES = {
    "exp_month": ("exp_month", "expiration_month"), "exp_year": ("exp_year", "expiration_year"),
    "address1": ("address1", "billing_address1"), "address2": ("address2", "billing_address2"),
    "city": ("city", "billing_city"), "state": ("state", "billing_state"), "zip": ("zip", "billing_zip"),
    "payment_method_option": ("payment_method_option", "payment_option"),
    "transaction_id": ("transaction_id", "charge_id"),
}  # fmt: skip
CARD_FIELDS = ("card_number", "exp_month", "exp_year", "cvv", "name_on_card", "address1", "city", "state", "zip")
CARD, OTHER, CASH = "CREDIT_CARD", "OTHER_PAYMENT_OPTION", "CASH"


def _also(name: str) -> FieldInfo:
    """The field under Lineup's name or the original service's."""
    field: FieldInfo = Field(validation_alias=AliasChoices(*NAMES[name]))
    return field


class MakePayment(ActionRequest, ConditionalFields):
    """Pays the plan's price plus tax: by card (the CVV goes to the gateway and nowhere else), or recorded as
    paid elsewhere (OTHER_PAYMENT_OPTION with its reference, or CASH) without reaching the gateway."""

    enrollment_id: Alnum
    plan_id: PlanIds
    payment_method: Literal["CREDIT_CARD", "OTHER_PAYMENT_OPTION", "CASH"] = "CREDIT_CARD"
    payment_method_option: Annotated[Text32 | None, _also("payment_method_option")] = None
    # The external payment's (or cash receipt's) reference, as its processor gives it.
    transaction_id: Annotated[ProcessorReference | None, _also("transaction_id")] = None
    card_number: CardNumber | None = None
    exp_month: Annotated[Month | None, _also("exp_month")] = None
    exp_year: Annotated[Year4 | None, _also("exp_year")] = None
    cvv: Cvv | None = None
    name_on_card: CardHolder | None = None
    card_type: Text32 | None = None  # accepted; the gateway says the brand
    address1: Annotated[AddressLine | None, _also("address1")] = None
    address2: Annotated[AddressLine | None, _also("address2")] = None
    city: Annotated[City | None, _also("city")] = None
    state: Annotated[State | None, _also("state")] = None
    zip: Annotated[Zip5 | None, _also("zip")] = None
    coupon_code: Text64 | None = None
    save_card: YesNo | None = None

    @classmethod
    def required_when(cls, data: Mapping[str, object]) -> dict[str, list[str]]:
        """A card payment needs the card and its billing address; a payment made elsewhere, its reference."""
        method = data.get("payment_method") or CARD
        if method == CARD:
            # The usual case: its fields are simply required (`Please enter Zip`).
            return {"": [f for f in CARD_FIELDS if not sent(data, *NAMES.get(f, (f,)))]}
        if method == OTHER:
            return {
                "an OTHER_PAYMENT_OPTION payment": [
                    f for f in ("payment_method_option", "transaction_id") if not sent(data, *NAMES[f])
                ]
            }
        return {}

    @model_validator(mode="after")
    def _not_expired(self) -> MakePayment:
        if self.by_card and self.exp_year is not None and self.exp_month is not None:
            today = date.today()
            if (int(self.exp_year), int(self.exp_month)) < (today.year, today.month):
                raise PydanticCustomError("rule", "Card has expired")
        return self

    @property
    def by_card(self) -> bool:
        return self.payment_method == CARD

    def __repr__(self) -> str:  # never let a card number reach a log through repr
        return f"MakePayment(enrollment_id={self.enrollment_id!r}, plan_id={list(self.plan_id)!r})"

    @property
    def recorded(self) -> bool:
        """Paid elsewhere (an external processor, or cash): recorded, never charged."""
        return self.payment_method != CARD


class PaymentDetails(ActionRequest):
    """What make_payment would charge for a plan: price, tax by name, total (for a ZIP or an enrollment id)."""

    plan_id: PlanIds
    zip_code: Zip5 | None = None
    enrollment_id: Alnum | None = None
    coupon_code: Text64 | None = None

    @model_validator(mode="after")
    def _where(self) -> PaymentDetails:
        if self.zip_code is None and self.enrollment_id is None:
            raise PydanticCustomError("rule", "Please enter Zip code or Enrollment Id")
        return self


class UpdateTaxCalculationStatus(ActionRequest):
    """Marks a tax calculation collected: `temporary` (provisional) or `final` (closes it)."""

    calc_id: Text32
    iccid: Iccid18to22
    status: Literal["temporary", "final"]
