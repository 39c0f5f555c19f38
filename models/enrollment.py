"""The enrollment domain's data, as every room shares it: the states a line moves through and the activation
types; the tables (plans, issued enrollment ids, lines with their customer records); the messages of the order's
and the line's workflows and of their lookups (ids and states only: PII stays sealed in the line's row); the
requests and answers of the enrollment actions, with the examples the OpenAPI document shows; and the queries
and writes the API and the activities share (a line's activation in the two statements it needs, line
passwords hashed off the create's path, the events a line's changes record)."""

from __future__ import annotations

import base64
import io
import logging
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from itertools import groupby
from typing import Literal, NamedTuple

import segno
from pydantic import Field, ValidationInfo, field_validator, model_validator
from pydantic_core import PydanticCustomError
from sqlalchemy import Index, bindparam, case, func, literal, text, update
from sqlmodel import Field as Column
from sqlmodel import SQLModel, col, select
from sqlmodel.sql.expression import SelectOfScalar

from models.address import outside_state
from models.auth import Vendor
from models.crypto import FieldCipher, Fields, hash_secret_async
from models.db import Database, RecordNotFound, Session
from models.envelope import Budget, Shape, omitted_when_none
from models.events import LINEUP, EventType, LineEvent, record
from models.settings import Settings
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
    utcnow,
)


class ActivationType(StrEnum):
    """How a line gets its number: a new one from the carrier, or one ported in from another carrier."""

    NEW = "NEWACTIVATION"
    PORTIN = "PORTIN"


class LineStatus(StrEnum):
    RECEIVED = "RECEIVED"  # stored by intake, no workflow has picked it up yet
    CUSTOMER_CREATED = "CUSTOMER_CREATED"
    WAITING_ACTIVATION = "WAITING_ACTIVATION"  # activation_later=Y: the SIM is attached, nothing provisioned
    SHIPPING = "SHIPPING"
    ACTIVATING = "ACTIVATING"
    ACTIVE = "ACTIVE"
    STUCK = "STUCK"  # a carrier step kept failing: waits for a retry
    PORT_PENDING = "PORT_PENDING"
    PORT_REJECTED = "PORT_REJECTED"
    PORT_CANCELLED = "PORT_CANCELLED"
    PORT_ABANDONED = "PORT_ABANDONED"
    PORT_COMPLETED = "PORT_COMPLETED"  # the carrier reported the port done without the number: needs a look
    RETRYING = "RETRYING"  # support's retry was accepted (STUCK → RETRYING, once); the workflow moves it on
    PORTED_OUT = "PORTED_OUT"  # its number was ported into another line


# States in which a line still waits for a synchronous carrier answer; any other state is settled.
IN_FLIGHT = frozenset({LineStatus.RECEIVED, LineStatus.CUSTOMER_CREATED, LineStatus.SHIPPING, LineStatus.ACTIVATING})


class Plan(SQLModel, table=True):
    __tablename__ = "plan"

    plan_id: int = Column(primary_key=True)
    plan_code: str = Column(max_length=32, unique=True)  # the carrier's code for the plan
    name: str = Column(max_length=100)
    description: str = Column(default="", max_length=200)  # features, as channels display them
    price_cents: int
    carrier: str = Column(max_length=16)
    # Allowances per month; None is unlimited.
    talk_minutes: int | None = None
    text_messages: int | None = None
    data_mb: int | None = None
    active: bool = True


class Enrollment(SQLModel, table=True):
    """An enrollment id issued by check_service_availability; claimed by at most one request."""

    __tablename__ = "enrollment"

    enrollment_id: str = Column(primary_key=True, max_length=24)
    vendor_id: int = Column(foreign_key="vendor.id", index=True)
    zip_code: str = Column(max_length=5)
    state: str = Column(max_length=2)
    enrollment_type: str = Column(default="NON_LIFELINE", max_length=16)
    issued_by: str | None = Column(default=None, max_length=100)
    issued_at: datetime = Column(default_factory=utcnow)
    claimed_by: str | None = Column(default=None, max_length=120, index=True)  # the enrollment workflow id
    claimed_at: datetime | None = None


class Line(SQLModel, table=True):
    """One line of an enrollment request: its customer record, device and activation state."""

    __tablename__ = "line"
    # One active line per number: the backstop behind intake's refusal and the port-out marking.
    __table_args__ = (
        Index(
            "uq_line_active_mdn",
            "mdn",
            unique=True,
            sqlite_where=text("status = 'ACTIVE'"),
            postgresql_where=text("status = 'ACTIVE'"),
        ),
    )

    enrollment_id: str = Column(primary_key=True, foreign_key="enrollment.enrollment_id", max_length=24)
    parent_enrollment_id: str = Column(max_length=24, index=True)
    order_id: str = Column(max_length=120, index=True)  # the enrollment workflow id
    vendor_id: int = Column(foreign_key="vendor.id", index=True)
    agent_username: str | None = Column(default=None, max_length=100)
    plan_id: int = Column(foreign_key="plan.plan_id")
    activation_type: str = Column(max_length=16)
    enrollment_type: str = Column(max_length=16)
    activation_later: bool = False
    phone_type: str | None = Column(default=None, max_length=8)
    device_type: str | None = Column(default=None, max_length=8)
    brand_code: str | None = Column(default=None, max_length=8)
    sku_type: str | None = Column(default=None, max_length=8)
    model_id: str | None = Column(default=None, max_length=64)
    device_id: str | None = Column(default=None, max_length=64)
    iccid: str | None = Column(default=None, max_length=22)
    is_esim: bool = False  # the carrier assigns an eSIM profile at activation
    esim_profile: str | None = None  # encrypted JSON: the profile's ICCID and activation code
    esn: str | None = Column(default=None, max_length=32)
    carrier: str | None = Column(default=None, max_length=32)
    invoice_number: str | None = Column(default=None, max_length=32)
    coupon_code: str | None = Column(default=None, max_length=64)
    email_hash: str = Column(max_length=64, index=True)  # sha256 of the lower-cased e-mail: customer login
    password_hash: str | None = Column(default=None, max_length=255)
    pin: str | None = None  # encrypted: the customer's 4-digit account PIN (None only on lines made before it)
    pii: str  # encrypted JSON: names, e-mail, phones, service and billing addresses
    customer_id: str | None = Column(default=None, max_length=16, unique=True)
    cust_id: str | None = Column(default=None, max_length=16)
    status: str = Column(default=LineStatus.RECEIVED.value, max_length=24, index=True)
    last_error: str | None = Column(default=None, max_length=500)
    status_since: datetime = Column(default_factory=utcnow)
    mdn: str | None = Column(default=None, max_length=10, index=True)
    released_mdn: str | None = Column(default=None, max_length=10)  # the number it gave back for a ported one
    msid: str | None = Column(default=None, max_length=16)
    msl: str | None = Column(default=None, max_length=8)
    shipment_reference: str | None = Column(default=None, max_length=32)
    activated_at: datetime | None = None
    created_at: datetime = Column(default_factory=utcnow)

    @property
    def physical_sim(self) -> bool:
        """A SIM or ESN attached that is no eSIM profile: such a line gets no eSIM (assign_esim)."""
        return not self.is_esim and (self.iccid is not None or self.esn is not None)


@dataclass(frozen=True)
class Pacing:
    """The settings a line's workflow runs by (a workflow reads no environment): retry budget, polling."""

    carrier_max_attempts: int = 8
    port_poll_seconds: float = 300.0
    port_max_days: float = 14.0
    stuck_retry_minutes: float = 15.0  # a stuck line tries its step again by itself this often…
    stuck_retry_hours: float = 24.0  # …for this long; then it waits for support
    history_events: int = 2000  # a stuck line continues as new past this many events in its history
    sync_wait_seconds: float = 5.0  # how long the order tries each line's carrier step before it answers

    @classmethod
    def of(cls, settings: Settings) -> Pacing:
        porting = settings.porting
        return cls(
            settings.enrollment.carrier_max_attempts,
            # The carrier pushes a port's changes when a secret is set: polling is then only the slow fallback.
            porting.push_fallback_seconds if porting.push_secret.get_secret_value() else porting.poll_seconds,
            settings.porting.max_days,
            settings.enrollment.stuck_retry_minutes,
            settings.enrollment.stuck_retry_hours,
            settings.enrollment.line_history_events,
            settings.enrollment.sync_wait_seconds,
        )


@dataclass(frozen=True)
class LinePlan:
    """What the orchestration needs to know of a line once its customer record exists."""

    enrollment_id: str
    customer_id: str
    cust_id: str
    enrollment_type: str
    activation_type: str
    activation_later: bool
    invoice_number: str | None = None
    carrier: str | None = None
    status: LineStatus = LineStatus.CUSTOMER_CREATED
    mdn: str | None = None
    msid: str | None = None
    msl: str | None = None
    esim: bool = False  # its answer carries the eSIM profile the activation gives it


@dataclass(frozen=True)
class EnrollmentOrder:
    """Input of EnrollmentWorkflow: the lines of one create_customer_prepaid_multiline request, each with the
    customer record intake gave it."""

    order_id: str
    parent_enrollment_id: str
    lines: list[LinePlan]
    vendor_code: str
    agent_id: str | None = None
    pacing: Pacing = field(default_factory=Pacing)

    @property
    def enrollment_ids(self) -> list[str]:
        return [line.enrollment_id for line in self.lines]


@dataclass(frozen=True)
class LineStart:
    """Input of LineWorkflow: the line as its order left it (ACTIVE, ACTIVATING, WAITING_ACTIVATION, or stuck)."""

    plan: LinePlan
    order_id: str
    parent_enrollment_id: str
    vendor_code: str
    agent_id: str | None = None
    pacing: Pacing = field(default_factory=Pacing)
    stuck: StuckState | None = None  # the line starts (or, continued as new, goes on) stuck on its activation


@dataclass(frozen=True)
class StuckState:
    """A carrier step that is stuck: where its own retries count from, the key it retries with, its error."""

    since: str  # ISO time the step first got stuck
    key_round: int = 0  # bumped after each carrier rejection: the corrected request needs a new key
    error: str | None = None
    zip_code: str | None = None  # new_number_activation_with_zip_code's area, for the retried activation


@dataclass(frozen=True)
class LineProgress:
    """A line's state as its workflow reports it to the enrollment (signal) and to queries."""

    enrollment_id: str
    status: LineStatus
    mdn: str | None = None
    msid: str | None = None
    msl: str | None = None
    error: str | None = None


@dataclass(frozen=True)
class Activation:
    """activate_line's update: a new SIM when the channel sends one, and how long the caller waits for the
    carrier's answer before it hears "in progress"."""

    wait_seconds: float
    esn: str | None = None
    iccid: str | None = None
    zip_code: str | None = None  # new_number_activation_with_zip_code: the new number's area


@dataclass(frozen=True)
class SimChange:
    enrollment_id: str
    esn: str | None = None
    iccid: str | None = None


@dataclass(frozen=True)
class EnrollmentResult:
    lines: list[LinePlan] = field(default_factory=list)


@dataclass(frozen=True)
class CarrierCall:
    """A carrier step of one line. The activity reads the line's data from the database by id."""

    enrollment_id: str
    vendor_code: str
    idempotency_key: str
    zip_code: str | None = None  # the new number's area, when not the service address's


@dataclass(frozen=True)
class LineActivated:
    mdn: str
    msid: str
    msl: str
    iccid: str | None = None


@dataclass(frozen=True)
class PortSubmitted:
    port_id: str
    status: str


@dataclass(frozen=True)
class LineState:
    """Persist a line's status (and the error that put it there)."""

    enrollment_id: str
    status: LineStatus
    error: str | None = None


@dataclass(frozen=True)
class InquiryRequest(Budget):
    enrollment_id: str
    vendor_code: str
    line_inquiry: bool = True
    balance_inquiry: bool = True
    query_sim_info: bool = False
    subscriber_status: bool = False


@dataclass(frozen=True)
class LineInquiryAnswer:
    """The carrier's answer about a line, whatever its status code (a 909 passes through to the channel)."""

    status_code: str
    description: str
    mdn: str = ""
    esn: str | None = None
    sim_number: str | None = None
    ban: str = ""
    esn_status: str = ""
    account_status: str = ""
    talk_balance: float = 0
    sms_balance: float = 0
    data_balance: float = 0
    reference_number: str = ""


@dataclass(frozen=True)
class CarrierListQuery(Budget):
    vendor_code: str


@dataclass(frozen=True)
class CarrierEntry:
    carrier_id: str
    carrier: str
    carrier_name: str


@dataclass(frozen=True)
class CarrierList:
    carriers: list[CarrierEntry] = field(default_factory=list)


@dataclass(frozen=True)
class EsimRequest(Budget):
    """A profile for a line that has no SIM yet, asked of the carrier within the lookup budget."""

    enrollment_id: str
    vendor_code: str


@dataclass(frozen=True)
class EsimAssigned:
    """The line has its profile (sealed in its row); `reserved`: this run asked the carrier for it."""

    reserved: bool


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
    customer_id: Numeric | None = None
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


def email_hash(cipher: FieldCipher, email: str) -> str:
    """What a line stores of its e-mail for the customer login: the keyed digest of the normalized address (an
    unkeyed one could be matched against a list of addresses by anyone holding the table)."""
    return cipher.digest("email", email.strip().lower())


async def get_line(session: Session, enrollment_id: str) -> Line:
    """The line with this enrollment id, or RecordNotFound."""
    line = await session.get(Line, enrollment_id)
    if line is None:
        raise RecordNotFound(f"line {enrollment_id} not found")
    return line


async def vendor_line(session: Session, enrollment_id: str, *, vendor_id: int | None) -> Line | None:
    """The vendor's line with this enrollment id; another vendor's line is as absent as a missing one.
    vendor_id None: any vendor's (the operators' CLI)."""
    line = await session.get(Line, enrollment_id)
    return line if line is not None and vendor_id in (None, line.vendor_id) else None


async def customer_line(session: Session, *, customer_id: str, vendor_id: int) -> Line | None:
    """The vendor's line holding this customer id (each line is a customer), or None."""
    query = select(Line).where(Line.customer_id == customer_id, Line.vendor_id == vendor_id)
    return (await session.exec(query)).first()


async def sim_line(session: Session, *, iccid: str, vendor_id: int) -> Line | None:
    """The vendor's newest line with this SIM attached, or None (the original names a line by its SIM too)."""
    query = (
        select(Line)
        .where(Line.iccid == iccid, Line.vendor_id == vendor_id)
        .order_by(col(Line.created_at).desc(), col(Line.enrollment_id))
    )
    return (await session.exec(query)).first()


async def email_lines(session: Session, *, cipher: FieldCipher, email: str, vendor_id: int) -> list[Line]:
    """The vendor's lines enrolled with this e-mail (compared as the login compares it), oldest first."""
    query = (
        select(Line)
        .where(Line.email_hash == email_hash(cipher, email), Line.vendor_id == vendor_id)
        .order_by(col(Line.created_at), col(Line.enrollment_id))
    )
    return list((await session.exec(query)).all())


async def accounts_lines(
    session: Session, *, cust_ids: Collection[str], vendor_id: int
) -> list[tuple[Line, str, Plan]]:
    """Every line of these accounts (the account holder's customer id is each line's cust_id), oldest first,
    with the ZIP its enrollment id was issued for and its plan."""
    query = (
        select(Line, Enrollment.zip_code, Plan)
        .join(Enrollment, col(Enrollment.enrollment_id) == col(Line.enrollment_id))
        .join(Plan, col(Plan.plan_id) == col(Line.plan_id))
        .where(col(Line.cust_id).in_(cust_ids), Line.vendor_id == vendor_id)
        .order_by(col(Line.created_at), col(Line.enrollment_id))
    )
    return [(line, zip_code, plan) for line, zip_code, plan in (await session.exec(query)).all()]


async def sealed_extras(session: Session, enrollment_ids: Collection[str]) -> dict[str, tuple[str | None, str | None]]:
    """Each line's sealed account PIN and sealed eSIM profile (None where it has none), by enrollment id."""
    query = select(Line.enrollment_id, Line.pin, Line.esim_profile).where(col(Line.enrollment_id).in_(enrollment_ids))
    return {enrollment_id: (pin, profile) for enrollment_id, pin, profile in (await session.exec(query)).all()}


async def give_pin(session: Session, enrollment_id: str, sealed_pin: str) -> None:
    """Gives a line without a PIN this one; a line that got one meanwhile keeps its own (the first writer wins)."""
    await session.run(
        update(Line).where(col(Line.enrollment_id) == enrollment_id, col(Line.pin).is_(None)).values(pin=sealed_pin)
    )


async def lines_of_order(session: Session, order_id: str) -> list[Line]:
    return list((await session.exec(select(Line).where(Line.order_id == order_id))).all())


async def orders_of(
    session: Session, order_ids: Collection[str] | SelectOfScalar[str], *, pacing: Pacing
) -> list[EnrollmentOrder]:
    """The orders with these ids (or those a query of ids selects) as intake would have started them, rebuilt
    from every one of their lines: an order started with some of its lines would lose the others. The sweep
    and support's retry start what intake left behind from this."""
    if isinstance(order_ids, Collection) and not order_ids:
        return []
    query = (
        select(Line, Vendor.code)
        .join(Vendor, col(Vendor.id) == col(Line.vendor_id))
        .where(col(Line.order_id).in_(order_ids))
        .order_by(col(Line.order_id), col(Line.created_at), col(Line.enrollment_id))
    )
    rows = (await session.exec(query)).all()
    return [_order(list(group), pacing) for _, group in groupby(rows, key=lambda row: row[0].order_id)]


def _order(rows: list[tuple[Line, str]], pacing: Pacing) -> EnrollmentOrder:
    first, vendor_code = rows[0]
    plans = [plan_of(line) for line, _ in rows]
    return EnrollmentOrder(first.order_id, first.parent_enrollment_id, plans, vendor_code, first.agent_username, pacing)


def plan_of(line: Line) -> LinePlan:
    """A line with its customer record, as the enrollment workflow plans and answers it."""
    assert line.customer_id is not None and line.cust_id is not None
    return LinePlan(
        enrollment_id=line.enrollment_id,
        customer_id=line.customer_id,
        cust_id=line.cust_id,
        enrollment_type=line.enrollment_type,
        activation_type=line.activation_type,
        activation_later=line.activation_later,
        invoice_number=line.invoice_number,
        carrier=line.carrier,
        status=LineStatus(line.status),
        mdn=line.mdn,
        msid=line.msid,
        msl=line.msl,
        esim=line.is_esim,
    )


async def holding_line(session: Session, mdn: str, *, besides: str) -> Line | None:
    """The ACTIVE line of any vendor that holds `mdn`, other than line `besides`."""
    query = select(Line).where(
        col(Line.mdn) == mdn, col(Line.status) == LineStatus.ACTIVE, col(Line.enrollment_id) != besides
    )
    return (await session.exec(query)).first()


async def ported_out(session: Session, mdn: str, *, to: str) -> None:
    """Any other ACTIVE line holding `mdn` is PORTED_OUT: the carrier moved the number to line `to` (which may
    be another vendor's, so the error names no line). Written before `to` becomes ACTIVE with it (the unique
    index on active lines' numbers)."""
    await session.run(
        update(Line)
        .where(col(Line.mdn) == mdn, col(Line.status) == LineStatus.ACTIVE, col(Line.enrollment_id) != to)
        .values(status=LineStatus.PORTED_OUT, last_error="Number ported out", status_since=utcnow())
    )


# Statuses an activation moves on from: a first try's, a waiting line's, support's retry (its own retry was moved
# to ACTIVATING by its workflow, with its event).
STARTING = (LineStatus.RECEIVED, LineStatus.CUSTOMER_CREATED, LineStatus.WAITING_ACTIVATION, LineStatus.RETRYING)


class Activating(NamedTuple):
    vendor_id: int
    parent_enrollment_id: str
    pii: str
    plan_id: int
    iccid: str | None
    esn: str | None
    is_esim: bool
    status: str
    mdn: str | None
    msid: str | None
    msl: str | None
    activation_later: bool
    esim_profile: str | None


_STARTING = col(Line.status).in_(STARTING)
_BEGIN = (
    update(Line)
    .where(col(Line.enrollment_id) == bindparam("eid"))
    .values(
        status=case((_STARTING, literal(LineStatus.ACTIVATING.value)), else_=col(Line.status)),
        status_since=case((_STARTING, bindparam("now")), else_=col(Line.status_since)),
        shipment_reference=case(
            ((col(Line.enrollment_type) == "SHIPMENT") & col(Line.shipment_reference).is_(None), bindparam("shipment")),
            else_=col(Line.shipment_reference),
        ),
    )
    .returning(*(getattr(Line, name) for name in Activating._fields))
)
_RECORD = (
    update(Line)
    .where(col(Line.enrollment_id) == bindparam("eid"), col(Line.status) != LineStatus.ACTIVE.value)
    .values(
        mdn=bindparam("mdn"),
        msid=bindparam("msid"),
        msl=bindparam("msl"),
        iccid=func.coalesce(col(Line.iccid), bindparam("iccid")),
        esim_profile=func.coalesce(bindparam("profile"), col(Line.esim_profile)),
        status=LineStatus.ACTIVE.value,
        last_error=None,
        status_since=bindparam("now"),
        activated_at=bindparam("now"),
    )
)


async def begin_activation(transaction: Session, enrollment_id: str, *, shipment: str, now: datetime) -> Activating:
    """The line ACTIVATING (unless a retried attempt finds it past that), and what the carrier order needs."""
    rows = await transaction.rows(_BEGIN, {"eid": enrollment_id, "now": now, "shipment": shipment})
    if not rows:
        raise RecordNotFound(f"line {enrollment_id} not found")
    return Activating._make(rows[0])


async def record_activation(
    transaction: Session,
    enrollment_id: str,
    *,
    numbers: tuple[str, str, str],
    iccid: str | None,
    profile: str | None,
    now: datetime,
) -> bool:
    """The carrier's numbers (and eSIM profile); False when the line was ACTIVE already (a repeated attempt)."""
    mdn, msid, msl = numbers
    values = {"eid": enrollment_id, "mdn": mdn, "msid": msid, "msl": msl, "iccid": iccid, "profile": profile}
    return await transaction.run(_RECORD, {**values, "now": now}) == 1


log = logging.getLogger(__name__)
PENDING = "pending"  # `line.password_hash` while the password is sealed in the line's PII, not yet hashed
PASSWORD = "password"  # its key in the sealed PII document


async def hash_all(db: Database, cipher: FieldCipher, lines_by_password: dict[str, list[str]]) -> int:
    """One hash per distinct password, written to every line that has it; how many lines it settled."""
    settled = 0
    for password, enrollment_ids in lines_by_password.items():
        try:
            settled += await settle(db, cipher, enrollment_ids, await hash_secret_async(password))
        except Exception:  # the lines keep their sealed password: verified from it, hashed later
            log.warning("line passwords left pending for %d line(s)", len(enrollment_ids), exc_info=True)
    return settled


async def settle(db: Database, cipher: FieldCipher, enrollment_ids: list[str], hashed: str) -> int:
    """The hash in place of the sealed password, on the lines still pending (not one hashed meanwhile)."""
    async with db.transaction() as session:
        query = select(Line).where(col(Line.enrollment_id).in_(enrollment_ids), col(Line.password_hash) == PENDING)
        lines = (await session.exec(query)).all()
        for line in lines:
            pii = cipher.open(line.pii, Fields)
            pii.pop(PASSWORD, None)
            line.pii, line.password_hash = cipher.seal(pii), hashed
            session.add(line)
        return len(lines)


async def hash_left_pending(db: Database, cipher: FieldCipher, *, created_before: datetime, limit: int) -> int:
    """The sweep's share: lines created before the grace whose password is still sealed (their API process
    died before hashing it), at most `limit` of them, oldest first; how many it settled."""
    query = (
        select(Line)
        .where(col(Line.password_hash) == PENDING, col(Line.created_at) < created_before)
        .order_by(col(Line.created_at))
        .limit(limit)
    )
    async with db.transaction(write=False) as session:
        lines = (await session.exec(query)).all()
    by_password: dict[str, list[str]] = {}
    for line in lines:
        if password := cipher.open(line.pii, Fields).get(PASSWORD):
            by_password.setdefault(password, []).append(line.enrollment_id)
    return await hash_all(db, cipher, by_password)


# A stuck line, or one support's retry has claimed (RETRYING) until its workflow takes the retry.
RETRIED_FROM = frozenset({LineStatus.STUCK, LineStatus.RETRYING})


async def line_moved(session: Session, line: Line, status: str, error: str | None) -> None:
    """Before a line's status changes: STUCK is recorded with its error; leaving STUCK for another attempt is a
    retry, Lineup's own unless support asked for it since the line got stuck."""
    if status == LineStatus.STUCK:
        record(session, line.enrollment_id, EventType.STUCK, line=line, error=error)
    elif (
        line.status in RETRIED_FROM
        and status == LineStatus.ACTIVATING
        and not await _support_retried(session, line.enrollment_id)
    ):
        record(session, line.enrollment_id, EventType.RETRIED, line=line)


async def _support_retried(session: Session, enrollment_id: str) -> bool:
    query = (
        select(LineEvent.type, LineEvent.actor)
        .where(LineEvent.enrollment_id == enrollment_id)
        .where(col(LineEvent.type).in_([EventType.STUCK.value, EventType.RETRIED.value]))
        .order_by(col(LineEvent.id).desc())
        .limit(1)
    )
    last = (await session.exec(query)).first()
    return last is not None and last[0] == EventType.RETRIED and last[1] != LINEUP


def retry_requested(session: Session, lines: Iterable[Line], *, actor: str) -> None:
    """Support's retry of stuck lines, recorded before the lines are signalled."""
    for line in lines:
        if line.status in RETRIED_FROM:
            record(session, line.enrollment_id, EventType.RETRIED, line=line, actor=actor)


def received(session: Session, lines: Iterable[Line], *, actor: str) -> None:
    """Intake stored these lines (in this transaction), each with its customer record and its SIM when it came
    with one."""
    for line in lines:
        record(session, line.enrollment_id, EventType.RECEIVED, actor=actor, line=line)
        if line.iccid or line.esn:
            record(session, line.enrollment_id, EventType.SIM_ATTACHED, actor=actor, line=line)
        record(session, line.enrollment_id, EventType.CUSTOMER_CREATED, line=line)


async def corrected(session: Session, enrollment_id: str, fields: Iterable[str], *, actor: str) -> None:
    """Support or a channel corrected these fields of the line: the names, never the values."""
    line = await session.get(Line, enrollment_id)
    for name in fields:
        record(session, enrollment_id, EventType.CORRECTED, line=line, actor=actor, field=name)
