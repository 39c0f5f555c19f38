"""`data` of the enrollment domain: customer creation (and aliases), activate_line, line_inquiry,
customer_info, check_service_availability, company_carrier_list and plan_list."""

from __future__ import annotations

import base64
import io

import segno
from pydantic import Field

from models.answers.base import Shape, omitted_when_none
from models.messages.enrollment import LineInquiryAnswer, LinePlan
from models.statuses import LineStatus
from models.tables.enrollment import Line, Plan

LINE_MESSAGES = {
    LineStatus.ACTIVE: "Customer created and line activated",
    LineStatus.PORT_PENDING: "Customer created; port-in submitted and pending",
    LineStatus.WAITING_ACTIVATION: "Customer created; SIM attached for activation later",
    LineStatus.STUCK: "Customer created; activation is waiting for support",
    LineStatus.PORT_REJECTED: "Customer created; the carrier rejected the port-in",
}
IN_PROGRESS = "Customer created; activation in progress"


class EsimProfile(Shape):
    ICCID: str
    ACTIVATION_CODE: str = Field(examples=["LPA:1$smdp.sandbox-carrier.example$K2D7Q-8W3ZP-4HX9M-TT6AB"])
    QR_ACTIVATION_CODE: str = Field(description="the activation code as a PNG QR image, a data URI")

    @classmethod
    def of(cls, iccid: str, activation_code: str) -> EsimProfile:
        """A line's eSIM profile as channels show it: the activation code, and as a QR code (PNG data URI) a
        phone's camera scans."""
        image = io.BytesIO()
        segno.make(activation_code, error="m").save(image, kind="png", scale=6, border=2)
        qr = "data:image/png;base64," + base64.b64encode(image.getvalue()).decode()
        return cls(ICCID=iccid, ACTIVATION_CODE=activation_code, QR_ACTIVATION_CODE=qr)


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
    esim: EsimProfile | None = omitted_when_none()


class LineEntry(Shape):
    """One element of create_customer_prepaid_multiline's `data`: the line's own code, message and record."""

    msg_code: str
    msg: str
    data: CustomerRecord

    @classmethod
    def of(cls, plan: LinePlan, invoice_number: str | None, esim: EsimProfile | None = None) -> LineEntry:
        record = CustomerRecord(
            customer_id=plan.customer_id,
            enrollment_id=plan.enrollment_id,
            enrollment_type=plan.enrollment_type,
            cust_id=plan.cust_id,
            mdn=plan.mdn,
            msid=plan.msid,
            msl=plan.msl or "",
            invoice_number=plan.invoice_number or invoice_number or "",
            esim=esim,
        )
        return cls(msg_code="RESTAPI000", msg=LINE_MESSAGES.get(plan.status, IN_PROGRESS), data=record)


class Values(Shape):
    VALUE: str


def values(value: object) -> list[Values]:
    return [Values(VALUE="" if value is None else str(value))]


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


WHOLESALE_NAMESPACES = {
    "xmlns": "http://wholesale.carrier.example/api",
    "xmlns:xsi": "http://www.w3.org/2001/XMLSchema-instance",
}


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

    @classmethod
    def of(cls, answer: LineInquiryAnswer, *, mdn: str | None, esn: str | None) -> LineInquiryData:
        """The carrier's answer in section 2.5's shape; balances and statuses only when it found the line."""
        found = answer.status_code == "00"
        number = answer.mdn or mdn or ""
        wholesale = WholesaleApi(
            ATTRIBUTES=WHOLESALE_NAMESPACES,
            CREDENTIALS=[Credential(REFERENCENUMBER=values(answer.reference_number), RETURNURL=values(""))],
            WHOLESALEORDERRESPONSE=[
                OrderResponse(DESCRIPTION=values(answer.description), STATUSCODE=values(answer.status_code))
            ],
        )
        return cls(
            ACCOUNTSTATUS=answer.account_status if found else "",
            ACCOUNT_STATUS=answer.account_status if found else "",
            BALANCE_INQ=BalanceInq(DESCRIPTION=answer.description, STATUSCODE=answer.status_code),
            DATA_BALANCE=answer.data_balance if found else 0,
            SMS_BALANCE=answer.sms_balance if found else 0,
            TALK_BALANCE=answer.talk_balance if found else 0,
            ESN=answer.esn or esn or "",
            MDN=number,
            LINE_INQ=LineInq(
                BAN=answer.ban,
                DESCRIPTION=answer.description,
                ESNSTATUS=answer.esn_status,
                MDN=number,
                SIM_NUMBER=answer.sim_number or esn or "",
                STATUSCODE=answer.status_code,
                CARRIER_RESPONSE=CarrierResponse(WHOLESALEAPI=[wholesale]),
            ),
        )


class HeldLine(Shape):
    enrollment_id: str
    mdn: str | None
    status: str
    plan_id: str
    activation_type: str
    carrier: str | None

    @classmethod
    def of(cls, line: Line) -> HeldLine:
        return cls(
            enrollment_id=line.enrollment_id,
            mdn=line.mdn,
            status=line.status,
            plan_id=str(line.plan_id),
            activation_type=line.activation_type,
            carrier=line.carrier,
        )


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

    @classmethod
    def of(cls, plan: Plan) -> PlanItem:
        """One plan as channels of the original read it: allowances as numbers (0 and a Y flag when unlimited)."""
        price = f"{plan.price_cents / 100:.2f}"
        return cls(
            plan_id=str(plan.plan_id),
            plan_code=plan.plan_code,
            plan_name=plan.name,
            plan_price=price,
            # No fees are added to a plan's price; the tax depends on the customer's state (payment_details).
            total_plan_price=price,
            carrier=plan.carrier,
            talk=plan.talk_minutes or 0,
            text=plan.text_messages or 0,
            data=plan.data_mb or 0,
            minute_unlimited=_unlimited(plan.talk_minutes),
            text_unlimited=_unlimited(plan.text_messages),
            data_unlimited=_unlimited(plan.data_mb),
            display_features_description=plan.description,
        )


def _unlimited(allowance: int | None) -> str:
    return "Y" if allowance is None else "N"


# Examples the OpenAPI document shows (and the catalog's test holds to these models).
RECORD = CustomerRecord(
    customer_id="482913567", enrollment_id="EA7KQ2M4XZP9R3TBWVC", enrollment_type="SHIPMENT", cust_id="482913567",
    mdn="4045550178", msid="4045550178", msl="493021", invoice_number="INV4829135671",
)  # fmt: skip
CREATED = [LineEntry(msg_code="RESTAPI000", msg=LINE_MESSAGES[LineStatus.ACTIVE], data=RECORD)]
INQUIRY = LineInquiryData.of(
    LineInquiryAnswer(
        "00", "Success", mdn="4045550178", esn="89012601234567890128", sim_number="89012601234567890128",
        ban="BAN4045550178", esn_status="ACTIVE", account_status="ACTIVE", talk_balance=1000, sms_balance=1000,
        data_balance=5120, reference_number="730158264091",
    ),
    mdn="4045550178", esn="89012601234567890128",
)  # fmt: skip
CUSTOMER_INFO = CustomerInfoData(
    customer_id="482913567", enrollment_id="EA7KQ2M4XZP9R3TBWVC", first_name="Pat", last_name="Lee",
    email="pat@example.com", service_address_one="12 Main St", service_city="Atlanta", service_state="GA",
    service_zip="30301",
    lines=[HeldLine(enrollment_id="EA7KQ2M4XZP9R3TBWVC", mdn="4045550178", status="ACTIVE", plan_id="102",
                    activation_type="NEWACTIVATION", carrier="TMB")],
)  # fmt: skip
AVAILABILITY = Availability(
    enrollment_id="EA7KQ2M4XZP9R3TBWVC", zip_code="30301", city="Atlanta", state="GA", carriers=["TMB", "ATT", "VER"]
)
CARRIERS = [
    CarrierItem(carrier_id="1", carrier="ATT", carrier_name="AT&T Mobility"),
    CarrierItem(carrier_id="2", carrier="TMB", carrier_name="T-Mobile USA"),
]
PLANS = [
    PlanItem(
        plan_id="102", plan_code="TMB-EVERYDAY-5G", plan_name="Everyday 5GB", plan_price="25.00",
        total_plan_price="25.00", carrier="TMB", talk=0, text=0, data=5120, minute_unlimited="Y", text_unlimited="Y",
        data_unlimited="N", display_features_description="Unlimited talk & text, 5 GB high-speed data",
    )
]  # fmt: skip
