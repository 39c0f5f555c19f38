"""Messages of the enrollment and line workflows and their lookups (line inquiry, the carrier list): ids and
states only. A line's PII stays sealed in its row; the activities read it by enrollment id."""

from __future__ import annotations

from dataclasses import dataclass, field

from models.messages.lookups import Budget
from models.settings import Settings
from models.statuses import LineStatus


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
        return cls(
            settings.enrollment.carrier_max_attempts,
            settings.porting.effective_poll_seconds,
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
class ActivationRecord:
    enrollment_id: str
    activated: LineActivated


@dataclass(frozen=True)
class PortRecord:
    enrollment_id: str
    port_id: str
    status: str


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
