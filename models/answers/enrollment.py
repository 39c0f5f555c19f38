"""`data` of the enrollment domain: customer creation (and aliases), activate_line, line_inquiry,
customer_info, check_service_availability, company_carrier_list and plan_list."""

from __future__ import annotations

import base64
import io
from collections.abc import Mapping

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


LPA_EXAMPLE = "LPA:1$smdp.sandbox-carrier.example$K2D7Q-8W3ZP-4HX9M-TT6AB"


class EsimProfile(Shape):
    """A line's eSIM profile as the original answers it (decisions.md, "eSIM"): the LPA text under both code
    names, since channels encode QR_ACTIVATION_CODE into a QR themselves, and that QR as an image."""

    ICCID: str
    ACTIVATION_CODE: str = Field(examples=[LPA_EXAMPLE])
    QR_ACTIVATION_CODE: str = Field(description="the LPA text a QR code carries", examples=[LPA_EXAMPLE])
    QR_CODE_IMAGE: str = Field(description="QR_ACTIVATION_CODE as a PNG QR code image, a data URI")

    @classmethod
    def of(cls, iccid: str, activation_code: str) -> EsimProfile:
        """The profile's activation code (LPA text), and the QR code a phone's camera scans to install it."""
        image = io.BytesIO()
        segno.make(activation_code, error="m").save(image, kind="png", scale=6, border=2)
        qr = "data:image/png;base64," + base64.b64encode(image.getvalue()).decode()
        return cls(ICCID=iccid, ACTIVATION_CODE=activation_code, QR_ACTIVATION_CODE=activation_code, QR_CODE_IMAGE=qr)


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
    pin: str = Field(description="the customer's 4-digit account PIN (port-out, account checks)")
    esim: EsimProfile | None = omitted_when_none()


class LineEntry(Shape):
    """One element of create_customer_prepaid_multiline's `data`: the line's own code, message and record."""

    msg_code: str
    msg: str
    data: CustomerRecord

    @classmethod
    def of(cls, plan: LinePlan, invoice_number: str | None, *, pin: str, esim: EsimProfile | None = None) -> LineEntry:
        record = CustomerRecord(
            customer_id=plan.customer_id,
            enrollment_id=plan.enrollment_id,
            enrollment_type=plan.enrollment_type,
            cust_id=plan.cust_id,
            mdn=plan.mdn,
            msid=plan.msid,
            msl=plan.msl or "",
            invoice_number=plan.invoice_number or invoice_number or "",
            pin=pin,
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


class CustomerLine(Shape):
    """One element of customer_info's answer: a line (each line is a customer) of a matching account."""

    customer_id: str
    enrollment_id: str
    parent_enrollment_id: str
    first_name: str
    last_name: str
    email: str
    service_address_one: str
    service_city: str
    service_state: str
    service_zip: str
    zip_code: str = Field(description="the ZIP the enrollment id was issued for (check_service_availability)")
    mdn: str | None
    esn_number: str | None
    status: str
    plan_id: str
    plan_description: str
    activation_type: str
    carrier: str | None
    is_esim: str
    pin: str

    @classmethod
    def of(cls, line: Line, *, pii: Mapping[str, str], zip_code: str, plan: Plan, pin: str) -> CustomerLine:
        assert line.customer_id is not None  # only lines with their customer record are answered
        return cls(
            customer_id=line.customer_id,
            enrollment_id=line.enrollment_id,
            parent_enrollment_id=line.parent_enrollment_id,
            zip_code=zip_code,
            mdn=line.mdn,
            esn_number=line.iccid or line.esn,
            status=line.status,
            plan_id=str(line.plan_id),
            plan_description=plan.description,
            activation_type=line.activation_type,
            carrier=line.carrier,
            is_esim="Y" if line.is_esim else "N",
            pin=pin,
            **{name: pii.get(name, "") for name in CUSTOMER_FIELDS},
        )


CUSTOMER_FIELDS = (
    "first_name", "last_name", "email", "service_address_one", "service_city", "service_state", "service_zip",
)  # fmt: skip


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


PLAN_EXPIRY_DAYS = 30  # every plan is a 30-day prepaid plan


class PlanItem(Shape):
    """One plan as channels of the original read it (decisions.md, "Availability and plans")."""

    plan_id: str
    plan_code: str
    plan_name: str
    plan_description: str
    plan_price: str
    display_price: str
    total_plan_price: str
    carrier: str
    talk: int
    text: int
    data: int
    minute_unlimited: str
    text_unlimited: str
    data_unlimited: str
    is_unlimited_plan: str
    is_familyplan: str
    is_prepaid_postpaid: str
    plan_expiry_days: int
    plan_expiry_type: str
    display_features_description: list[str] = Field(examples=[["Unlimited talk & text", "5 GB high-speed data"]])
    plan_discount_details: list[dict[str, str]]
    autopay_discount: str

    @classmethod
    def of(cls, plan: Plan) -> PlanItem:
        """Allowances as numbers (0 and a Y flag when unlimited), features one string each."""
        price = f"{plan.price_cents / 100:.2f}"
        return cls(
            plan_id=str(plan.plan_id),
            plan_code=plan.plan_code,
            plan_name=plan.name,
            plan_description=plan.description,
            plan_price=price,
            display_price=f"${price}",
            # No fees are added to a plan's price; the tax depends on the customer's state (payment_details).
            total_plan_price=price,
            carrier=plan.carrier,
            talk=plan.talk_minutes or 0,
            text=plan.text_messages or 0,
            data=plan.data_mb or 0,
            minute_unlimited=_unlimited(plan.talk_minutes),
            text_unlimited=_unlimited(plan.text_messages),
            data_unlimited=_unlimited(plan.data_mb),
            is_unlimited_plan=_unlimited(plan.data_mb),  # what "unlimited" means on a plan page: the data
            is_familyplan="N",  # every line is its own customer; no plan is shared
            is_prepaid_postpaid="PREPAID",
            plan_expiry_days=PLAN_EXPIRY_DAYS,
            plan_expiry_type="DAYS",
            display_features_description=features(plan.description),
            plan_discount_details=[],
            autopay_discount="0.00",
        )


def features(description: str) -> list[str]:
    """A plan's features, one string each, from the description the operator writes as a comma list."""
    return [feature.strip() for feature in description.split(",") if feature.strip()]


def _unlimited(allowance: int | None) -> str:
    return "Y" if allowance is None else "N"


# Examples the OpenAPI document shows (and the catalog's test holds to these models).
RECORD = CustomerRecord(
    customer_id="482913567",
    enrollment_id="EA7KQ2M4XZP9R3TBWVC",
    enrollment_type="SHIPMENT",
    cust_id="482913567",
    mdn="4045550178",
    msid="4045550178",
    msl="493021",
    invoice_number="INV4829135671",
    pin="4821",
)
CREATED = [LineEntry(msg_code="RESTAPI000", msg=LINE_MESSAGES[LineStatus.ACTIVE], data=RECORD)]
INQUIRY = LineInquiryData.of(
    LineInquiryAnswer(
        "00",
        "Success",
        mdn="4045550178",
        esn="89012601234567890128",
        sim_number="89012601234567890128",
        ban="BAN4045550178",
        esn_status="ACTIVE",
        account_status="ACTIVE",
        talk_balance=1000,
        sms_balance=1000,
        data_balance=5120,
        reference_number="730158264091",
    ),
    mdn="4045550178",
    esn="89012601234567890128",
)
CUSTOMER_INFO = [
    CustomerLine(
        customer_id="482913567", enrollment_id="EA7KQ2M4XZP9R3TBWVC", parent_enrollment_id="EA7KQ2M4XZP9R3TBWVC",
        first_name="Pat", last_name="Lee", email="pat@example.com", service_address_one="12 Main St",
        service_city="Atlanta", service_state="GA", service_zip="30301", zip_code="30301", mdn="4045550178",
        esn_number="89012601234567890128", status="ACTIVE", plan_id="102",
        plan_description="Unlimited talk & text, 5 GB high-speed data", activation_type="NEWACTIVATION",
        carrier="TMB", is_esim="N", pin="4821",
    )
]  # fmt: skip
AVAILABILITY = Availability(
    enrollment_id="EA7KQ2M4XZP9R3TBWVC", zip_code="30301", city="ATLANTA", state="GA", carriers=["TMB", "ATT", "VER"]
)
CARRIERS = [
    CarrierItem(carrier_id="1", carrier="ATT", carrier_name="AT&T Mobility"),
    CarrierItem(carrier_id="2", carrier="TMB", carrier_name="T-Mobile USA"),
]
PLANS = [
    PlanItem(
        plan_id="102", plan_code="TMB-EVERYDAY-5G", plan_name="Everyday 5GB",
        plan_description="Unlimited talk & text, 5 GB high-speed data", plan_price="25.00", display_price="$25.00",
        total_plan_price="25.00", carrier="TMB", talk=0, text=0, data=5120, minute_unlimited="Y", text_unlimited="Y",
        data_unlimited="N", is_unlimited_plan="N", is_familyplan="N", is_prepaid_postpaid="PREPAID",
        plan_expiry_days=PLAN_EXPIRY_DAYS, plan_expiry_type="DAYS",
        display_features_description=["Unlimited talk & text", "5 GB high-speed data"], plan_discount_details=[],
        autopay_discount="0.00",
    )
]  # fmt: skip
