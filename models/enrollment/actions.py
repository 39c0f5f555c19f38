"""The enrollment actions' requests and answers (availability, plans, carriers, create, inquiry, activation,
eSIM, customer info), with the examples the OpenAPI document shows. The line's own state is in `lines.py`."""

from __future__ import annotations

import base64
import io
from collections.abc import Mapping
from typing import Literal

import segno
from pydantic import Field, ValidationInfo, field_validator, model_validator
from pydantic_core import PydanticCustomError

from models.address import outside_state
from models.enrollment.lines import (
    ActivationType,
    CarrierItem,
    Line,
    LineInquiryAnswer,
    LinePlan,
    LineStatus,
    Plan,
    plan_of,
)
from models.envelope import Shape, omitted_when_none
from models.types import (
    AccountNumber,
    AccountPin,
    ActionRequest,
    AddressLine,
    Alnum,
    BlankIsAbsent,
    CarrierCode,
    City,
    ConditionalFields,
    CustomerId,
    CustomerPin,
    Email,
    Esn,
    Iccid,
    LastName,
    Mdn,
    MiddleInitial,
    Numeric,
    NumText32,
    PersonName,
    Phone10,
    PortSsn,
    Raw64,
    State,
    Text32,
    Text64,
    YesNo,
    Zip5,
    sent,
)


class CheckServiceAvailability(ActionRequest):
    """Issues a new, unused enrollment id for a ZIP the service covers."""

    zip_code: Zip5
    enrollment_type: Literal["NON_LIFELINE"] = "NON_LIFELINE"
    is_enrollment: Literal["Y"] | None = None


class PlanList(ActionRequest):
    """The plans a channel can sell, optionally one plan or the plans sold in a ZIP's state."""

    zip_code: Zip5 | None = None
    plan_id: Numeric | None = None


class CompanyCarrierList(ActionRequest):
    """The carriers the company sells on, with the carrier's numeric ids (query_portin takes either)."""


MOST_LINES = 100
# A line's customer data (LineRequest's fields of it), sealed in its row as its PII.
PII_FIELDS = (
    "first_name", "middle_initial", "last_name", "email", "alternate_phone_number", "service_address_one",
    "service_address_two", "service_city", "service_state", "service_zip", "billing_address_one",
    "billing_address_two", "billing_city", "billing_state", "billing_zip",
)  # fmt: skip
PORT_FIELDS = (
    "port_current_carrier", "port_first_name", "port_last_name", "port_address_one", "port_city", "port_state",
    "port_zip_code", "port_account_number", "port_account_password", "port_ssn", "port_number",
)  # fmt: skip


class LineRequest(BlankIsAbsent, ConditionalFields):
    """One line (section 2.3). Conditional rules: PORTIN needs the port fields; HANDOVER needs
    handover_type `cbe`, esn and carrier; phone_type 4G needs uiccid."""

    enrollment_id: Alnum
    password: Raw64 | None = Field(default=None, min_length=6)
    model_id: Text64 | None = None
    first_name: PersonName
    middle_initial: MiddleInitial | None = None
    last_name: LastName
    alternate_phone_number: Phone10 | None = None
    email: Email
    service_address_one: AddressLine
    service_address_two: AddressLine | None = None
    service_city: City
    service_state: State
    service_zip: Zip5
    plan_id: Numeric
    notify_bill_via_text: YesNo | None = None
    notify_bill_via_email: YesNo | None = None
    phone_type: Literal["4G", "3G", "4GLTE"] | None = None
    part_number: Text64 | None = None
    equipment_id: Text64 | None = None
    equipment_child_id: Text64 | None = None
    device_id: Text64 | None = None
    uiccid: Iccid | None = None
    brand_code: Literal["ASW", "BST", "SPP", "VMU", "SPR", "PLD"] | None = None
    sku_type: Literal["INTL", "BYO", "NEW"] | None = None
    esn: Esn | None = None
    carrier: CarrierCode | None = None
    activation_type: Literal["NEWACTIVATION", "PORTIN"]
    enrollment_type: Literal["SHIPMENT", "HANDOVER"]
    handover_type: Literal["cbe"] | None = None
    port_current_carrier: Text32 | None = None
    port_first_name: PersonName | None = None
    port_last_name: LastName | None = None
    port_address_one: AddressLine | None = None
    port_address_two: AddressLine | None = None
    port_city: City | None = None
    port_state: State | None = None
    port_zip_code: Zip5 | None = None
    port_account_number: AccountNumber | None = None
    port_account_password: AccountPin | None = None
    port_ssn: PortSsn | None = None
    port_number: Mdn | None = None
    old_esn: Esn | None = None  # the SIM the number had at the losing carrier: kept for get_list, not sent on
    billing_address_one: AddressLine | None = None
    billing_address_two: AddressLine | None = None
    billing_city: City | None = None
    billing_state: State | None = None
    billing_zip: Zip5 | None = None
    device_type: Literal["CDMA", "GSM"] | None = None
    coupon_code: Text64 | None = None
    coupon_transaction_id: Text32 | None = None
    activation_later: YesNo | None = None
    is_esim: YesNo | None = None  # Y: no physical SIM; the carrier assigns an eSIM profile
    pin: CustomerPin | None = None  # the customer's account PIN; generated when not given
    # The original service's per-line forms (create_prepaid_postpaid_customer_v2): see CreateMultiline.
    is_portin: YesNo | None = None
    parent_enrollment_id: Alnum | None = None
    order_id: NumText32 | None = None  # make_payment's order_id; the payment is found by enrollment id anyway
    action: object = None  # the sample sends it per line, as null

    @classmethod
    def required_when(cls, data: Mapping[str, object]) -> dict[str, list[str]]:
        """PORTIN needs the port fields; HANDOVER needs handover_type, carrier and (unless eSIM) esn; phone
        type 4G needs uiccid unless the carrier assigns an eSIM."""
        esim = data.get("is_esim") == "Y"
        rules: dict[str, list[str]] = {}
        if data.get("activation_type") == ActivationType.PORTIN:
            rules["a PORTIN activation"] = [f for f in PORT_FIELDS if not sent(data, f)]
        if data.get("enrollment_type") == "HANDOVER":
            needed = ("handover_type", "carrier") if esim else ("handover_type", "esn", "carrier")
            rules["a HANDOVER enrollment"] = [f for f in needed if not sent(data, f)]
        if data.get("phone_type") == "4G" and not esim:
            rules["phone type 4G"] = [] if sent(data, "uiccid") else ["uiccid"]
        return rules

    @field_validator("service_zip")
    @classmethod
    def _zip_in_state(cls, service_zip: str, info: ValidationInfo[object]) -> str:
        """The service ZIP is one of the service state's, by USPS's ZIP data (service_state is validated first,
        declared before it; a bad state is its own error)."""
        state = info.data.get("service_state")
        if isinstance(state, str) and (problem := outside_state(service_zip, state)):
            raise PydanticCustomError("rule", problem)
        return service_zip

    @property
    def later(self) -> bool:
        return self.activation_later == "Y"

    @property
    def esim(self) -> bool:
        return self.is_esim == "Y"


class CreateMultiline(ActionRequest):
    """Creates prepaid customers, one per line, under a parent account (1 to LINEUP_MAX_LINES lines)."""

    # Bounded before a single line is validated (a 100,000-line body is one cheap refusal); the deployment's
    # own LINEUP_MAX_LINES, at most this, is checked by the operation.
    lines: list[LineRequest] = Field(min_length=1, max_length=MOST_LINES)
    parent_enrollment_id: Alnum
    invoice_number: str | None = Field(default=None, max_length=32)

    @model_validator(mode="before")
    @classmethod
    def _original_forms(cls, data: object) -> object:
        """The aliases take the original's forms too (decisions.md): the parent named inside the lines, and
        activation_type from is_portin. create_customer_prepaid_multiline keeps the interface's rules."""
        if not isinstance(data, dict) or data.get("action") not in ALIASES or not isinstance(data.get("lines"), list):
            return data
        lines = [_with_activation_type(line) for line in data["lines"]]
        form = {**data, "lines": lines}
        if not sent(data, "parent_enrollment_id") and (holder := _holder(lines)) is not None:
            form["parent_enrollment_id"] = holder
        return form


ALIASES = ("add_line_nonlifeline_customer", "create_prepaid_postpaid_customer_v2")


def _with_activation_type(line: object) -> object:
    if not isinstance(line, dict) or sent(line, "activation_type"):
        return line
    kind = ActivationType.PORTIN if line.get("is_portin") == "Y" else ActivationType.NEW
    return {**line, "activation_type": kind.value}


def _holder(lines: list[object]) -> str | None:
    """The account holder the lines name: each line's parent_enrollment_id, or the line itself when that is
    empty or its own id. Lines naming different holders name none (parent_enrollment_id stays missing).

    A line without its own id and without a parent names nobody: it is refused for its missing id whatever
    the parent, so reporting the parent missing as well would name an error the channel did not make
    (decisions.md, "v2 lines without their own id"). When no line names anyone, the holder is such a line,
    and the request cannot validate: the placeholder only keeps the parent from being reported."""
    named = set()
    for line in lines:
        if not isinstance(line, dict):
            return None
        if (parent := _text(line.get("parent_enrollment_id"))) is not None:
            named.add(parent)
        elif (own := _text(line.get("enrollment_id"))) is not None:
            named.add(own)
    if not named:
        return UNNAMED_HOLDER if lines else None
    return named.pop() if len(named) == 1 else None


# Stands for an account holder whose own enrollment id is missing; such a request never validates.
UNNAMED_HOLDER = "UNNAMED"


def _text(value: object) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


class LineInquiry(ActionRequest):
    """Asks the carrier about a line; each flag selects part of the answer."""

    enrollment_id: Alnum
    line_inquiry: YesNo | None = None
    balance_inquiry: YesNo | None = None
    zoom_balance: YesNo | None = None
    peer_balance: YesNo | None = None
    telna_balance: YesNo | None = None
    query_sim_info: YesNo | None = None
    data_saver_info: YesNo | None = None
    subscriber_status: YesNo | None = None


class ActivateLine(ActionRequest):
    """Activates a line created with activation_later=Y; a new SIM (esn or uiccid) may replace the attached one."""

    enrollment_id: Alnum
    esn: Esn | None = None
    uiccid: Iccid | None = None

    @model_validator(mode="after")
    def _one_sim(self) -> ActivateLine:
        if self.esn is not None and self.uiccid is not None:
            raise PydanticCustomError("rule", "Send either Esn or Uiccid, not both")
        return self


class AssignEsim(ActionRequest):
    """The line's eSIM profile: the one it has, or one the carrier assigns now to a line that has no SIM yet."""

    enrollment_id: Alnum


class NewNumberActivation(ActionRequest):
    """new_number_activation_with_zip_code: activates a line waiting for activation with a new number in the
    ZIP's area; a SIM (esn, or sim / iccid) may replace the attached one."""

    enrollment_id: Alnum
    zip_code: Zip5
    esn: Esn | None = None
    sim: Iccid | None = None
    iccid: Iccid | None = None

    @model_validator(mode="after")
    def _one_sim(self) -> NewNumberActivation:
        if sum(value is not None for value in (self.esn, self.sim, self.iccid)) > 1:
            raise PydanticCustomError("rule", "Send one of Esn, Sim or Iccid, not several")
        return self

    @property
    def sim_number(self) -> str | None:
        return self.sim or self.iccid


class CustomerInfo(ActionRequest):
    """The customers of the calling vendor that match one key (an e-mail may match several), line by line."""

    enrollment_id: Alnum | None = None
    customer_id: CustomerId | None = None
    email: Email | None = None

    @model_validator(mode="after")
    def _one_key(self) -> CustomerInfo:
        if self.enrollment_id is None and self.customer_id is None and self.email is None:
            raise PydanticCustomError("rule", "Please enter either Customer ID, Enrollment ID or Email")
        return self


LINE_MESSAGES = {
    LineStatus.ACTIVE: "Customer created and line activated",
    LineStatus.PORT_PENDING: "Customer created; port-in submitted and pending",
    LineStatus.WAITING_ACTIVATION: "Customer created; SIM attached for activation later",
    LineStatus.STUCK: "Customer created; activation is waiting for support",
    LineStatus.PORT_REJECTED: "Customer created; the carrier rejected the port-in",
}
IN_PROGRESS = "Customer created; activation in progress"
ALREADY_ACTIVE = "Line is already active"  # activate_line and its mobile form asked for an active line


LPA_EXAMPLE = "LPA:1$smdp.sandbox-carrier.example$K2D7Q-8W3ZP-4HX9M-TT6AB"


ESIM_ALLOCATED = "eSIM profile allocated"


class EsimProfile(Shape):
    """A line's eSIM profile as the original answers it (decisions.md, "eSIM"): the LPA text under both code
    names, since channels encode QR_ACTIVATION_CODE into a QR themselves, and that QR as an image; with the
    allocation's status and the SM-DP+ address, which the original's Flutter app saves with the profile."""

    ICCID: str
    ACTIVATION_CODE: str = Field(examples=[LPA_EXAMPLE])
    QR_ACTIVATION_CODE: str = Field(description="the LPA text a QR code carries", examples=[LPA_EXAMPLE])
    QR_CODE_IMAGE: str = Field(description="QR_ACTIVATION_CODE as a PNG QR code image, a data URI")
    SMDPADDRESS: str = Field(
        description="the SM-DP+ address of the LPA text", examples=["smdp.sandbox-carrier.example"]
    )
    STATUSCODE: Literal["00"]
    DESCRIPTION: str = Field(examples=[ESIM_ALLOCATED])
    ESIM_ALLOCATION_SUCCESS: Literal["Y"]

    @classmethod
    def of(cls, iccid: str, activation_code: str) -> EsimProfile:
        """The profile's activation code (LPA text `LPA:1$<SM-DP+ address>$<matching id>`), its SM-DP+ address,
        and the QR code a phone's camera scans to install it."""
        image = io.BytesIO()
        segno.make(activation_code, error="m").save(image, kind="png", scale=6, border=2)
        qr = "data:image/png;base64," + base64.b64encode(image.getvalue()).decode()
        smdp = activation_code.split("$")[1] if activation_code.count("$") >= 2 else ""
        return cls(
            ICCID=iccid,
            ACTIVATION_CODE=activation_code,
            QR_ACTIVATION_CODE=activation_code,
            QR_CODE_IMAGE=qr,
            SMDPADDRESS=smdp,
            STATUSCODE="00",
            DESCRIPTION=ESIM_ALLOCATED,
            ESIM_ALLOCATION_SUCCESS="Y",
        )


class CustomerRecord(Shape):
    """Interface section 2.4; the customer ids are numbers, as the original answers them (decisions.md)."""

    customer_id: int
    enrollment_id: str
    enrollment_type: str
    cust_id: int = Field(description="the account holder's customer_id")
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
            customer_id=int(plan.customer_id),
            enrollment_id=plan.enrollment_id,
            enrollment_type=plan.enrollment_type,
            cust_id=int(plan.cust_id),
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

    customer_id: int
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
            customer_id=int(line.customer_id),
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
            **{name: pii.get(name, "") for name in cls.model_fields if name in PII_FIELDS},
        )


class Availability(Shape):
    enrollment_id: str
    zip_code: str
    city: str
    state: str
    carriers: list[str]


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


# Examples the OpenAPI document shows (and the catalog's test holds to these models), most of them one line's, made
# by the answers' own constructors: a line of the demo's plan 102 (its columns no answer shows left empty).
PLAN = Plan(
    plan_id=102, plan_code="TMB-EVERYDAY-5G", name="Everyday 5GB", price_cents=2500, carrier="TMB", data_mb=5120,
    description="Unlimited talk & text, 5 GB high-speed data",
)  # fmt: skip
LINE = Line(
    enrollment_id="EA7KQ2M4XZP9R3TBWVC", parent_enrollment_id="EA7KQ2M4XZP9R3TBWVC", customer_id="482913567",
    cust_id="482913567", plan_id=PLAN.plan_id, activation_type="NEWACTIVATION", enrollment_type="SHIPMENT",
    carrier="TMB", iccid="89012601234567890128", invoice_number="INV4829135671", status="ACTIVE", mdn="4045550178",
    msid="4045550178", msl="493021", order_id="", vendor_id=0, email_hash="", pii="",
)  # fmt: skip
PERSON = {
    "first_name": "Pat", "last_name": "Lee", "email": "pat@example.com", "service_address_one": "12 Main St",
    "service_city": "Atlanta", "service_state": "GA", "service_zip": "30301",
}  # fmt: skip
CREATED = [LineEntry.of(plan_of(LINE), None, pin="4821")]
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
CUSTOMER_INFO = [CustomerLine.of(LINE, pii=PERSON, zip_code="30301", plan=PLAN, pin="4821")]
AVAILABILITY = Availability(
    enrollment_id="EA7KQ2M4XZP9R3TBWVC", zip_code="30301", city="ATLANTA", state="GA", carriers=["TMB", "ATT", "VER"]
)
CARRIERS = [
    CarrierItem(carrier_id="1", carrier="ATT", carrier_name="AT&T Mobility"),
    CarrierItem(carrier_id="2", carrier="TMB", carrier_name="T-Mobile USA"),
]
PLANS = [PlanItem.of(PLAN)]
