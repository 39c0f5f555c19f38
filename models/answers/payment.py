"""`data` of the payment domain: make_payment, payment_details, update_tax_calculation_status_plum."""

from __future__ import annotations

from models.answers.base import Shape, omitted_when_none


class Payment(Shape):
    invoice_number: str
    transaction_id: str
    calc_id: str | None
    amount: str
    tax_amount: str
    order_id: str
    payment_method: str
    payment_status: str  # SUCCESS: every answer is of a settled payment
    settlement: str  # how it settled: APPROVED (card charged) or RECORDED (paid elsewhere, or cash)
    total_amount: str
    plan_tax: str
    transaction_no: str
    coupon_transaction_id: str | None = omitted_when_none()
    card_id: str | None = omitted_when_none()


class TaxItem(Shape):
    tax_name: str
    tax_amount: str


class DetailedPlan(Shape):
    plan_id: str
    plan_name: str
    plan_price: str  # one month's
    no_of_months: str
    tax_breakup: list[TaxItem]


class PaymentDetailsData(Shape):
    state: str
    total_actual_amount: str
    total_tax: str
    total_amount: str
    plan: DetailedPlan | None = omitted_when_none()  # one plan
    plans: list[DetailedPlan] | None = omitted_when_none()  # a list of more than one


class TaxStatus(Shape):
    """Interface section 2.8."""

    STATUSCODE: str
    DESCRIPTION: str
    CALCID: str
    REFERENCENUMBER: str


PAYMENT = Payment(
    invoice_number="INV4829135671",
    transaction_id="ch_7Hq2Lm9Xa",
    calc_id="TX0482913567",
    amount="25.00",
    tax_amount="1.00",
    order_id="1042",
    payment_method="CREDIT_CARD",
    payment_status="SUCCESS",
    settlement="APPROVED",
    total_amount="26.00",
    plan_tax="1.00",
    transaction_no="ch_7Hq2Lm9Xa",
    card_id="7",
)
DETAILS = PaymentDetailsData(
    state="GA",
    total_actual_amount="25.00",
    total_tax="1.00",
    total_amount="26.00",
    plan=DetailedPlan(
        plan_id="102",
        plan_name="Everyday 5GB",
        plan_price="25.00",
        no_of_months="1",
        tax_breakup=[TaxItem(tax_name="State sales tax", tax_amount="1.00")],
    ),
)
TAX_STATUS = TaxStatus(
    STATUSCODE="00", DESCRIPTION="Tax collected", CALCID="TX0482913567", REFERENCENUMBER="830571926403"
)
