"""Dataclasses that cross the Temporal boundary. They carry ids and states, never PII: names, addresses,
SSNs, port PINs and card data stay in the database. New fields get defaults so running histories decode."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Pacing:
    """The settings a line's workflow runs by (a workflow reads no environment): retry budget, polling."""

    carrier_max_attempts: int = 8
    port_poll_seconds: float = 300.0
    port_max_days: float = 14.0


@dataclass(frozen=True)
class EnrollmentOrder:
    """Input of EnrollmentWorkflow: the lines of one create_customer_prepaid_multiline request."""

    order_id: str
    parent_enrollment_id: str
    enrollment_ids: list[str]
    vendor_code: str
    agent_id: str | None = None
    pacing: Pacing = field(default_factory=Pacing)


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
    status: str = "CUSTOMER_CREATED"
    mdn: str | None = None
    msid: str | None = None
    msl: str | None = None


@dataclass(frozen=True)
class LineStart:
    """Input of LineWorkflow."""

    plan: LinePlan
    order_id: str
    parent_enrollment_id: str
    vendor_code: str
    agent_id: str | None = None
    pacing: Pacing = field(default_factory=Pacing)


@dataclass(frozen=True)
class LineProgress:
    """A line's state as its workflow reports it to the enrollment (signal) and to queries."""

    enrollment_id: str
    status: str
    mdn: str | None = None
    msid: str | None = None
    msl: str | None = None
    error: str | None = None


@dataclass(frozen=True)
class SyncWait:
    """Update argument: how long the caller may wait for MDNs after the customer records exist."""

    seconds: float


@dataclass(frozen=True)
class EnrollmentResult:
    lines: list[LinePlan] = field(default_factory=list)


@dataclass(frozen=True)
class CarrierCall:
    """A carrier step of one line. The activity reads the line's data from the database by id."""

    enrollment_id: str
    vendor_code: str
    idempotency_key: str


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
    status: str
    error: str | None = None


@dataclass(frozen=True)
class ActivationRecord:
    enrollment_id: str
    activated: LineActivated


@dataclass(frozen=True)
class InquiryRequest:
    enrollment_id: str
    vendor_code: str
    line_inquiry: bool = True
    balance_inquiry: bool = True
    query_sim_info: bool = False
    subscriber_status: bool = False


@dataclass(frozen=True)
class TaxQuote:
    """Registers an order's tax calculation with the carrier (pending collection)."""

    idempotency_key: str
    vendor_code: str
    state: str
    amount_cents: int


@dataclass(frozen=True)
class TaxQuoted:
    calc_id: str
    tax_cents: int


@dataclass(frozen=True)
class PortRecord:
    enrollment_id: str
    port_id: str
    status: str


@dataclass(frozen=True)
class NladCheck:
    """Input of NladCheckWorkflow. The subject (names, SSN4, birth date, address) travels sealed with the
    field cipher, so history shows ciphertext only and no SSN or birth date is written to our database."""

    check_key: str  # the workflow id; the recorded check is keyed by it
    vendor_id: int
    sealed_subject: str
    enrollment_id: str | None = None
    agent_id: str | None = None


@dataclass(frozen=True)
class NladAnswer:
    result: str  # NLAD's answer as it gave it, e.g. SUBSCRIBER_NOT_FOUND


@dataclass(frozen=True)
class NladOutcome:
    """Records an answered check (outcome, ZIP, initials; never the SSN)."""

    check: NladCheck
    result: str


@dataclass(frozen=True)
class DeviceQuery:
    imei: str
    carrier: str


@dataclass(frozen=True)
class MailDelivery:
    """Input of MailDeliveryWorkflow: the outbox row holds the content, so none of it enters history."""

    outbox_id: int
    idempotency_key: str


@dataclass(frozen=True)
class MailSent:
    message_id: str
