"""The enrollment domain's state, as every room shares it: the states a line moves through and the activation
types; the tables (plans, issued enrollment ids, lines with their customer records); the messages of the order's
and the line's workflows and of their lookups (ids and states only: PII stays sealed in the line's row); and the
queries and writes the API and the activities share (a line's activation in the two statements it needs, line
passwords hashed off the create's path, the events a line's changes record)."""

from __future__ import annotations

import logging
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from itertools import groupby
from typing import Any, NamedTuple

from pydantic import ConfigDict, with_config
from sqlalchemy import ColumnElement, Index, bindparam, case, func, literal, text, update
from sqlmodel import Field as Column
from sqlmodel import SQLModel, col, select
from sqlmodel.sql.expression import SelectOfScalar

from models.auth import Vendor
from models.crypto import FieldCipher, Fields, hash_secret_async
from models.db import Database, RecordNotFound, Session, database_unavailable
from models.envelope import Budget
from models.events import LINEUP, EventType, LineEvent, record
from models.settings import Settings
from models.types import utcnow


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
# A stuck line's error when its carrier step's last attempt ended with its worker (killed, restarted: the attempt
# timed out with no answer): the step's key is the same on the next attempt, so the carrier never makes two lines.
WORKER_STOPPED = "The worker stopped during the carrier step; retrying is safe"


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
    """Input of LineWorkflow: the line as its order left it (ACTIVATING, WAITING_ACTIVATION, or stuck; an ACTIVE
    line has none)."""

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
    """A line's state as its workflow reports it: its result, the `activate` update's answer, the `status` query."""

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
class FirstTries:
    """The order's first try of its lines' activations, all in one local activity."""

    calls: list[CarrierCall]


@dataclass(frozen=True)
class FirstTryOutcome:
    """One line of FirstTries: activated; refused by the carrier (its words: the line is stuck); or neither (no
    answer in time, the carrier away), which the order tries again or leaves to the line's own workflow."""

    enrollment_id: str
    activated: LineActivated | None = None
    refused: str | None = None


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


# What a line inquiry may ask the carrier for: a flag of InquiryRequest's, sent to the carrier under its name.
INQUIRY_FLAGS = ("line_inquiry", "balance_inquiry", "query_sim_info", "subscriber_status")


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


# Also company_carrier_list's answer: validated and documented as an answer model is (its members only).
@with_config(ConfigDict(extra="forbid"))
@dataclass(frozen=True)
class CarrierItem:
    carrier_id: str
    carrier: str
    carrier_name: str


@dataclass(frozen=True)
class CarrierList:
    carriers: list[CarrierItem] = field(default_factory=list)


@dataclass(frozen=True)
class EsimRequest(Budget):
    """A profile for a line that has no SIM yet, asked of the carrier within the lookup budget."""

    enrollment_id: str
    vendor_code: str


@dataclass(frozen=True)
class EsimAssigned:
    """The line has its profile (sealed in its row); `reserved`: this run asked the carrier for it."""

    reserved: bool


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
    be another vendor's, so the error and the event name no line). Written before `to` becomes ACTIVE with it
    (the unique index on active lines' numbers); its vendor hears `line.ported_out` on the line."""
    went = (
        update(Line)
        .where(col(Line.mdn) == mdn, col(Line.status) == LineStatus.ACTIVE, col(Line.enrollment_id) != to)
        .values(status=LineStatus.PORTED_OUT, last_error="Number ported out", status_since=utcnow())
        .returning(col(Line.enrollment_id), col(Line.vendor_id), col(Line.parent_enrollment_id))
    )
    for enrollment_id, vendor_id, parent in await session.rows(went):
        ids = _LineIds(vendor_id=int(str(vendor_id)), parent_enrollment_id=str(parent), mdn=mdn)
        record(session, str(enrollment_id), EventType.PORTED_OUT, line=ids, ported_at=utcnow().isoformat())


@dataclass(frozen=True)
class _LineIds:
    """What an event says of a line whose row was changed by one statement (models.events.LineIds)."""

    vendor_id: int
    parent_enrollment_id: str
    mdn: str | None


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


class Recorded(NamedTuple):
    """What the carrier's activation gave a line, as its row records it."""

    mdn: str
    msid: str
    msl: str
    iccid: str | None
    profile: str | None  # the eSIM profile, sealed


def _by_line(values: Mapping[str, object]) -> ColumnElement[Any]:  # type: ignore[explicit-any]
    """A value for each line of one UPDATE, chosen by its enrollment id."""
    return case(dict(values), value=col(Line.enrollment_id))


async def begin_activations(
    transaction: Session, shipments: Mapping[str, str], *, now: datetime
) -> dict[str, Activating]:
    """The lines (by enrollment id, with the shipment reference each gets if it ships) ACTIVATING unless a retried
    attempt finds one past that, and what each carrier order needs: one statement for any number of lines."""
    starting = col(Line.status).in_(STARTING)
    ships = (col(Line.enrollment_type) == "SHIPMENT") & col(Line.shipment_reference).is_(None)
    begin = (
        update(Line)
        .where(col(Line.enrollment_id).in_(list(shipments)))
        .values(
            status=case((starting, literal(LineStatus.ACTIVATING.value)), else_=col(Line.status)),
            status_since=case((starting, bindparam("now")), else_=col(Line.status_since)),
            shipment_reference=case((ships, _by_line(shipments)), else_=col(Line.shipment_reference)),
        )
        .returning(col(Line.enrollment_id), *(getattr(Line, name) for name in Activating._fields))
    )
    found = {str(row[0]): Activating._make(row[1:]) for row in await transaction.rows(begin, {"now": now})}
    if missing := [enrollment_id for enrollment_id in shipments if enrollment_id not in found]:
        raise RecordNotFound(f"lines {', '.join(missing)} not found")
    return found


async def begin_activation(transaction: Session, enrollment_id: str, *, shipment: str, now: datetime) -> Activating:
    """One line's begin_activations."""
    return (await begin_activations(transaction, {enrollment_id: shipment}, now=now))[enrollment_id]


async def record_activations(transaction: Session, records: Mapping[str, Recorded], *, now: datetime) -> set[str]:
    """The carrier's numbers (and eSIM profiles) of the lines, in one statement; the lines it recorded (not one
    that was ACTIVE already: a repeated attempt)."""
    if not records:
        return set()

    def each(field: str) -> ColumnElement[Any]:  # type: ignore[explicit-any]
        return _by_line({eid: getattr(done, field) for eid, done in records.items()})

    recorded = (
        update(Line)
        .where(col(Line.enrollment_id).in_(list(records)), col(Line.status) != LineStatus.ACTIVE.value)
        .values(
            mdn=each("mdn"),
            msid=each("msid"),
            msl=each("msl"),
            iccid=func.coalesce(col(Line.iccid), each("iccid")),
            esim_profile=func.coalesce(each("profile"), col(Line.esim_profile)),
            status=LineStatus.ACTIVE.value,
            last_error=None,
            status_since=bindparam("now"),
            activated_at=bindparam("now"),
        )
        .returning(col(Line.enrollment_id))
    )
    return {str(row[0]) for row in await transaction.rows(recorded, {"now": now})}


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
    done = Recorded(*numbers, iccid=iccid, profile=profile)
    return bool(await record_activations(transaction, {enrollment_id: done}, now=now))


log = logging.getLogger(__name__)
PENDING = "pending"  # `line.password_hash` while the password is sealed in the line's PII, not yet hashed
PASSWORD = "password"  # its key in the sealed PII document


async def hash_all(db: Database, cipher: FieldCipher, passwords: Iterable[tuple[str, str]]) -> int:
    """One hash per distinct password of the (enrollment id, password) pairs, written to every line that has it;
    how many lines it settled."""
    lines_by_password: dict[str, list[str]] = {}
    for enrollment_id, password in passwords:
        lines_by_password.setdefault(password, []).append(enrollment_id)
    settled = 0
    for password, enrollment_ids in lines_by_password.items():
        try:
            settled += await settle(db, cipher, enrollment_ids, await hash_secret_async(password))
        except Exception as problem:  # the lines keep their sealed password: verified from it, hashed later
            # The database away is an outage to wait out (the sweep hashes them): one line; anything else a bug.
            away = database_unavailable(problem)
            fields = {"lines": len(enrollment_ids), **({"reason": type(problem).__name__} if away else {})}
            log.warning("line passwords left pending", extra={"fields": fields}, exc_info=not away)
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
    sealed = [(line.enrollment_id, cipher.open(line.pii, Fields).get(PASSWORD)) for line in lines]
    return await hash_all(db, cipher, [(enrollment_id, password) for enrollment_id, password in sealed if password])


# A stuck line, or one support's retry has claimed (RETRYING) until its workflow takes the retry.
RETRIED_FROM = frozenset({LineStatus.STUCK, LineStatus.RETRYING})


async def set_status(session: Session, line: Line, status: str, error: str | None) -> None:
    """The line's new status (and error), with its event: STUCK is recorded with its error; leaving STUCK for
    another attempt is a retry, Lineup's own unless support asked for it since the line got stuck."""
    if status == LineStatus.STUCK:
        record(session, line.enrollment_id, EventType.STUCK, line=line, error=error)
    elif (
        line.status in RETRIED_FROM
        and status == LineStatus.ACTIVATING
        and not await _support_retried(session, line.enrollment_id)
    ):
        record(session, line.enrollment_id, EventType.RETRIED, line=line)
    line.status, line.last_error, line.status_since = status, error, utcnow()
    session.add(line)


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
