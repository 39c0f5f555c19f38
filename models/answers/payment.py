"""`data` of /payment: make_payment, payment_details, update_tax_calculation_status_plum."""

from __future__ import annotations

from models.answers.base import Shape


class Payment(Shape):
    invoice_number: str
    transaction_id: str
    calc_id: str | None
    amount: str
    tax_amount: str
    order_id: str
    payment_method: str
    payment_status: str
    total_amount: str
    plan_tax: str
    transaction_no: str
    coupon_transaction_id: str | None = None
    card_id: str | None = None


class TaxItem(Shape):
    tax_name: str
    tax_amount: str


class DetailedPlan(Shape):
    plan_id: str
    plan_name: str
    plan_price: str
    tax_breakup: list[TaxItem]


class PaymentDetailsData(Shape):
    state: str
    total_actual_amount: str
    total_tax: str
    total_amount: str
    plan: DetailedPlan


class TaxStatus(Shape):
    """Interface section 2.8."""

    STATUSCODE: str
    DESCRIPTION: str
    CALCID: str
    REFERENCENUMBER: str
