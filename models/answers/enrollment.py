"""`data` of the enrollment domain: customer creation (and aliases), activate_line, line_inquiry,
customer_info, check_service_availability, company_carrier_list and plan_list."""

from __future__ import annotations

from pydantic import Field

from models.answers.base import Shape


class EsimProfile(Shape):
    ICCID: str
    ACTIVATION_CODE: str = Field(examples=["LPA:1$smdp.sandbox-carrier.example$K2D7Q-8W3ZP-4HX9M-TT6AB"])
    QR_ACTIVATION_CODE: str = Field(description="the activation code as a PNG QR image, a data URI")


class CustomerRecord(Shape):
    """Interface section 2.4."""

    customer_id: str
    enrollment_id: str
    enrollment_type: str
    cust_id: str
    mdn: str | None
    msid: str | None
    msl: str
    invoice_number: str
    esim: EsimProfile | None = None


class LineEntry(Shape):
    msg_code: str
    msg: str
    data: CustomerRecord


class Values(Shape):
    VALUE: str


class Credential(Shape):
    REFERENCENUMBER: list[Values]
    RETURNURL: list[Values]


class OrderResponse(Shape):
    DESCRIPTION: list[Values]
    STATUSCODE: list[Values]


class WholesaleApi(Shape):
    ATTRIBUTES: dict[str, str]
    CREDENTIALS: list[Credential]
    WHOLESALEORDERRESPONSE: list[OrderResponse]


class CarrierResponse(Shape):
    WHOLESALEAPI: list[WholesaleApi]


class LineInq(Shape):
    BAN: str
    DESCRIPTION: str
    ESNSTATUS: str
    MDN: str
    SIM_NUMBER: str
    STATUSCODE: str
    CARRIER_RESPONSE: CarrierResponse


class BalanceInq(Shape):
    DESCRIPTION: str
    STATUSCODE: str


class LineInquiryData(Shape):
    """Interface section 2.5; a carrier-level 909 passes through inside a successful envelope."""

    ACCOUNTSTATUS: str
    ACCOUNT_STATUS: str
    BALANCE_INQ: BalanceInq
    DATA_BALANCE: float
    SMS_BALANCE: float
    TALK_BALANCE: float
    ESN: str
    MDN: str
    LINE_INQ: LineInq


class HeldLine(Shape):
    enrollment_id: str
    mdn: str | None
    status: str
    plan_id: str
    activation_type: str
    carrier: str | None


class CustomerInfoData(Shape):
    customer_id: str
    enrollment_id: str
    first_name: str
    last_name: str
    email: str
    service_address_one: str
    service_city: str
    service_state: str
    service_zip: str
    lines: list[HeldLine]


class Availability(Shape):
    enrollment_id: str
    zip_code: str
    city: str
    state: str
    carriers: list[str]


class CarrierItem(Shape):
    carrier_id: str
    carrier: str
    carrier_name: str


class PlanItem(Shape):
    plan_id: str
    plan_code: str
    plan_name: str
    plan_price: str
    total_plan_price: str
    carrier: str
    talk: int
    text: int
    data: int
    minute_unlimited: str
    text_unlimited: str
    data_unlimited: str
    display_features_description: str
