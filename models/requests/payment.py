"""`/payment`: make_payment (update_tax_calculation_status_plum arrives with the tax issue)."""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import model_validator
from pydantic_core import PydanticCustomError

from models.requests.base import ActionRequest
from models.types import (
    AddressLine, Alnum, CardHolder, CardNumber, City, Cvv, Iccid18to22, Month, Numeric, State, Text, Year4, YesNo,
    Zip5,
)  # fmt: skip


class MakePayment(ActionRequest):
    """Charges the plan's price plus tax; the CVV goes to the gateway and nowhere else."""

    action: Literal["make_payment"]
    enrollment_id: Alnum
    plan_id: Numeric
    card_number: CardNumber
    exp_month: Month
    exp_year: Year4
    cvv: Cvv
    name_on_card: CardHolder
    address1: AddressLine
    address2: AddressLine | None = None
    city: City
    state: State
    zip: Zip5
    coupon_code: str | None = None
    save_card: YesNo | None = None

    @model_validator(mode="after")
    def _not_expired(self) -> MakePayment:
        today = date.today()
        if (int(self.exp_year), int(self.exp_month)) < (today.year, today.month):
            raise PydanticCustomError("rule", "Card has expired")
        return self

    def __repr__(self) -> str:  # never let a card number reach a log through repr
        return f"MakePayment(enrollment_id={self.enrollment_id!r}, plan_id={self.plan_id!r})"


class UpdateTaxCalculationStatus(ActionRequest):
    """Marks a tax calculation collected: `temporary` (provisional) or `final` (closes it)."""

    action: Literal["update_tax_calculation_status_plum"]
    calc_id: Text
    iccid: Iccid18to22
    status: Literal["temporary", "final"]


PaymentAction = MakePayment | UpdateTaxCalculationStatus
