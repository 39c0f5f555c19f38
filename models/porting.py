"""The porting domain's data: a line's port-in order (the old account's data sealed in `secrets`), the carrier's
port-status pushes taken, PortInWorkflow's messages, the `/port` requests and answers, and their queries."""

from __future__ import annotations

import re
import secrets
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum
from operator import attrgetter
from typing import Annotated

from pydantic import AliasChoices, BaseModel, Field, model_validator
from pydantic_core import PydanticCustomError
from sqlalchemy import BigInteger, Index, case, delete, func, literal, text, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Field as Column
from sqlmodel import SQLModel, col, select
from sqlmodel.sql.sqltypes import UTCDateTime

from models.auth import Vendor
from models.db import Database, RecordNotFound, Session, insert_or_lock, table
from models.enrollment.lines import Line, Pacing, StuckState
from models.envelope import PORT_IN_PROGRESS, PORT_NOT_NOW, Budget, Shape, omitted_when_none
from models.events import EventType, record
from models.settings import PortingSettings
from models.types import (
    AccountNumber,
    AccountPin,
    ActionRequest,
    AddressLine,
    Alnum,
    Checked,
    City,
    Esn,
    Iccid,
    Imei,
    JsonSchema,
    LastName,
    Mdn,
    PersonName,
    PortCarrier,
    PortSsn,
    State,
    Text32,
    YesNo,
    Zip5,
    passes,
    utcnow,
)


class PortStatus(StrEnum):
    RECEIVED = "RECEIVED"  # stored, not submitted yet
    SUBMITTED = "SUBMITTED"
    CONFIRMED = "CONFIRMED"
    RESOLUTION_REQUIRED = "RESOLUTION_REQUIRED"
    COMPLETED = "COMPLETED"
    REJECTED = "REJECTED"
    CANCELLED = "CANCELLED"
    ABANDONED = "ABANDONED"  # no final answer within LINEUP_PORT_MAX_DAYS


IN_PROGRESS = (PortStatus.RECEIVED, PortStatus.SUBMITTED, PortStatus.CONFIRMED, PortStatus.RESOLUTION_REQUIRED)
TERMINAL_PORT_STATES = frozenset(PortStatus).difference(IN_PROGRESS)
# One port in progress per number: the backstop behind intake's refusal of a second.
PENDING_PORT = text(f"status IN ({', '.join(repr(status.value) for status in IN_PROGRESS)})")
POLL_WINDOW = timedelta(hours=1)  # a port's pushes make it poll at most LINEUP_PORT_PUSH_POLLS_PER_HOUR per window
# A port order's number (get_list's port_subscriber_id), drawn at random so that one vendor's numbers say nothing
# of another's (how many ports there are, which are near): 10 digits, past a 32-bit integer, so a BIGINT.
PORT_NUMBERS = range(10**9, 10**10)
PORT_NUMBER_ATTEMPTS = 3  # a clash with another order's number draws again; three in a row is a fault, not chance
# Why an order waiting for corrections was cancelled: another vendor's port of the number came after its hold.
HOLD_ENDED = "Cancelled: not corrected within the port hold"


def new_port_number() -> int:
    return PORT_NUMBERS[secrets.randbelow(len(PORT_NUMBERS))]


class Taken(StrEnum):
    """What became of a carrier's push, in the words the carrier is answered with."""

    POLL = "Port status push received"  # a new push: its port is asked now
    # A new push, but its port was asked as often as an hour allows: the next poll will see.
    WITHIN_LIMIT = "Port status push received; the port was asked recently, its next poll will see the change"
    REPLAYED = "Port status push already received"  # taken before


class PortIn(SQLModel, table=True):
    """The port-in order of a PORTIN line. `secrets` holds the old account's data, encrypted; `subscriber_id` is
    the order's number channels name it by, `old_esn` the SIM the number had at the losing carrier (no secret)."""

    __tablename__ = "port_in"
    __table_args__ = (
        Index(
            "uq_port_in_progress",
            "port_number",
            unique=True,
            sqlite_where=PENDING_PORT,
            postgresql_where=PENDING_PORT,
        ),
    )

    enrollment_id: str = Column(primary_key=True, foreign_key="line.enrollment_id", max_length=24)
    subscriber_id: int = Column(default_factory=new_port_number, sa_type=BigInteger, unique=True, index=True)
    port_number: str = Column(max_length=10, index=True)
    current_carrier: str = Column(max_length=32)
    secrets: str
    carrier_port_id: str | None = Column(default=None, max_length=32)
    old_esn: str | None = Column(default=None, max_length=32)
    status: str = Column(default=PortStatus.RECEIVED.value, max_length=24)
    resolution_code: str | None = Column(default=None, max_length=8)
    resolution_description: str | None = Column(default=None, max_length=200)
    carrier_response: str | None = Column(default=None, max_length=200)
    requested_at: datetime | None = None
    responded_at: datetime | None = None
    # When it entered RESOLUTION_REQUIRED: another vendor's port of the number waits for it LINEUP_PORT_HOLD_HOURS.
    held_since: datetime | None = None
    # The digest of the old-account data the holder's check last counted: a retried submission counts it once.
    checked: str | None = Column(default=None, max_length=64)


class PortOutGuard(SQLModel, table=True):
    """A number Lineup holds, as ports of it are checked: its wrong account/PIN checks counted in a window from the
    first of them, and the time until which its ports are refused once too many were wrong. One row per number,
    locked while a check runs, so parallel guesses are counted one after another."""

    __tablename__ = "port_out_guard"

    port_number: str = Column(primary_key=True, max_length=10)
    failures: int = 0
    window_start: datetime | None = None
    locked_until: datetime | None = None


class PortPush(SQLModel, table=True):
    """A carrier's port-status push, taken once: the digest of its signed timestamp and body is unique, so a replay
    is known; rows older than the signature's tolerance and the poll window are purged as new pushes arrive.
    `signalled`: it made the port's workflow poll."""

    __tablename__ = "port_push"

    id: int | None = Column(default=None, primary_key=True)
    digest: str = Column(max_length=64, unique=True)  # sha256 of "t.body", as signed
    enrollment_id: str = Column(max_length=24, index=True)
    signalled: bool = False
    received_at: datetime = Column(default_factory=utcnow, index=True)


@dataclass(frozen=True)
class PortStart:
    """Input of PortInWorkflow (`port-<enrollment_id>`); carried over continue-as-new with what it has done."""

    enrollment_id: str
    vendor_code: str
    pacing: Pacing = field(default_factory=Pacing)
    line_active: bool = False  # a port into an ACTIVE line: it keeps its number and status until completion
    submitted: PortSubmission | None = None  # the submission the order made, or this workflow's earlier run's
    stuck: StuckState | None = None  # its submission is stuck
    polls: int = 0
    corrections: int = 0
    view: PortView | None = None


@dataclass(frozen=True)
class PortSubmission:
    """A submission's outcome: the carrier's port, or (`port_id` None) a port of a number an active line of
    Lineup holds whose old-account data did not match: never sent, `view` says RESOLUTION_REQUIRED and why."""

    port_id: str | None
    submitted_at: str  # ISO time of the first submission: the port's age counts from it
    view: PortView | None = None


@dataclass(frozen=True)
class PortFinish:
    """The port's end as it reaches the line; `released`: the number the line had before the ported one."""

    enrollment_id: str
    vendor_code: str
    view: PortView
    released: str | None = None


@dataclass(frozen=True)
class PortOutcome:
    """What the port's end made of the line."""

    status: str
    mdn: str | None = None
    error: str | None = None
    released: str | None = None


@dataclass(frozen=True)
class PortView:
    """What query_portin answers: the port's state as the carrier last reported it."""

    status: str
    resolution_code: str | None = None
    resolution_description: str | None = None
    carrier_response: str | None = None
    request_datetime: str | None = None
    response_datetime: str | None = None
    mdn: str | None = None
    msid: str | None = None
    msl: str | None = None


@dataclass(frozen=True)
class PortWatchPoll:
    """watch_port's input: the port, and the state the workflow knows (an answer in that state is no news)."""

    enrollment_id: str
    vendor_code: str
    port_id: str
    known: PortView


@dataclass(frozen=True)
class PortCorrection(Budget):
    """update_portin's corrections are already stored (encrypted) with the port; this says resubmit."""

    enrollment_id: str
    correction_id: str


@dataclass(frozen=True)
class PortResubmit:
    enrollment_id: str
    vendor_code: str
    port_id: str
    idempotency_key: str


@dataclass(frozen=True)
class PortCheck(Budget):
    vendor_code: str
    port_number: str
    zip_code: str | None = None


@dataclass(frozen=True)
class PortEligibilityReply:
    port_number: str
    eligible: bool
    current_carrier: str
    current_carrier_name: str
    reason: str | None = None


@dataclass(frozen=True)
class PortStarted:
    """The update's answer: the line's state once the carrier took (or refused) the port, or it got stuck."""

    status: str
    port_id: str | None = None
    reason: str | None = None


class PortAccountFields(BaseModel):
    """The old account's data a port-in carries, any subset of it: what update_portin and submit_portin correct,
    and what the support console's port fix corrects."""

    port_account_number: AccountNumber | None = None
    port_account_password: AccountPin | None = None
    port_first_name: PersonName | None = None
    port_last_name: LastName | None = None
    port_address_one: AddressLine | None = None
    port_city: City | None = None
    port_state: State | None = None
    port_zip_code: Zip5 | None = None

    def corrections(self) -> dict[str, str]:
        """The values given, under the names the port's sealed secrets use."""
        return {
            name.removeprefix("port_").replace("zip_code", "zip"): value
            for name in PortAccountFields.model_fields
            if (value := getattr(self, name)) is not None
        }


class QueryPortin(ActionRequest):
    """The status of a pending port-in order, named by its enrollment id, ESN/SIM and number together; without
    an ESN (mobile channels send `"esn": ""`, which is none) by its enrollment id and number alone."""

    enroll_id: Alnum
    esn: Esn | None = None
    mdn: Mdn
    carrier: PortCarrier


class PortCorrections(PortAccountFields, ActionRequest):
    """Corrected old-account data for a port the carrier marked RESOLUTION_REQUIRED; any subset."""

    @model_validator(mode="after")
    def _at_least_one_correction(self) -> PortCorrections:
        if not self.corrections():
            raise PydanticCustomError("rule", "Please provide at least one corrected port field")
        return self


# decisions.md, `/port` submit_portin: get_list answers port_subscriber_id as a JSON number, and a channel sends it
# back as one or as its digits; the line's enrollment id, what the field took before there were port numbers,
# still names the line's port.
PORT_REF_RULE = "must be a port_subscriber_id from get_list (a number) or the line's enrollment id"
PORT_REF = r"[A-Za-z0-9]{1,24}"
PORT_REF_SCHEMA: JsonSchema = {
    "anyOf": [
        {"type": "integer", "minimum": PORT_NUMBERS.start, "maximum": PORT_NUMBERS.stop - 1},
        {"type": "string", "pattern": f"^{PORT_REF}$", "description": "its digits, or the line's enrollment id"},
    ],
    "description": PORT_REF_RULE,
    "examples": [4829137465],
}
PortRef = Annotated[str, Checked(passes(re.compile(PORT_REF).fullmatch, PORT_REF_RULE), PORT_REF_SCHEMA, numbers=True)]


class UpdatePortin(PortCorrections):
    """update_portin: corrections for the port of line `enroll_id`."""

    enroll_id: Alnum


class SubmitPortin(PortCorrections):
    """submit_portin (the mobile channels' name): corrections for the port `portin_enrollment_id` (a
    port_subscriber_id from get_list, or the line's enrollment id) of the account of `enrollment_id`;
    `password_pin` is the old PIN."""

    enrollment_id: Alnum
    portin_enrollment_id: PortRef
    port_account_password: AccountPin | None = Field(
        default=None, validation_alias=AliasChoices("port_account_password", "password_pin")
    )


class ValidatePortin(ActionRequest):
    """Whether a number can be ported in, and the carrier it is with now (the carrier answers); the mobile
    channels send it as `mdn` on `/inventory`."""

    port_number: Mdn = Field(validation_alias=AliasChoices("port_number", "mdn"))
    zip_code: Zip5 | None = None


class GetPortList(ActionRequest):
    """The port orders of a line, or with get_child_list Y of its whole account."""

    enroll_id: Alnum
    get_child_list: YesNo | None = None


class CreatePortin(ActionRequest):
    """create_portin_v2_when_create_customer_was_called_without_portin_tag: a port for a line created without
    PORTIN. The line is named by `enrollment_id`, or by its `sim` alone. The old account's data comes under
    Lineup's `port_*` names or the original's documented ones (`first_name`, `account_number`, `password_pin`,
    `zip_code`, …), both onto one port order; no SSN is needed here (the carrier's port request carries none),
    and without a current carrier the carrier is asked for it."""

    # Each port field under Lineup's name or the original's (decisions.md: both forms are accepted).
    enrollment_id: Alnum | None = None
    sim: Iccid | None = None
    imei: Imei | None = None  # the device the number moves to: checked, not part of the port order
    port_number: Mdn
    port_current_carrier: Text32 | None = Field(
        default=None, validation_alias=AliasChoices("port_current_carrier", "current_carrier")
    )
    port_first_name: PersonName = Field(validation_alias=AliasChoices("port_first_name", "first_name"))
    port_last_name: LastName = Field(validation_alias=AliasChoices("port_last_name", "last_name"))
    port_address_one: AddressLine = Field(validation_alias=AliasChoices("port_address_one", "address_one"))
    port_address_two: AddressLine | None = Field(
        default=None, validation_alias=AliasChoices("port_address_two", "address_two")
    )
    port_city: City = Field(validation_alias=AliasChoices("port_city", "city"))
    port_state: State = Field(validation_alias=AliasChoices("port_state", "state"))
    port_zip_code: Zip5 = Field(validation_alias=AliasChoices("port_zip_code", "zip_code"))
    port_account_number: AccountNumber = Field(validation_alias=AliasChoices("port_account_number", "account_number"))
    port_account_password: AccountPin = Field(validation_alias=AliasChoices("port_account_password", "password_pin"))
    port_ssn: PortSsn | None = None
    old_esn: Esn | None = None  # the SIM the number had at the losing carrier: kept for get_list, not sent on

    @model_validator(mode="after")
    def _names_a_line(self) -> CreatePortin:
        if self.enrollment_id is None and self.sim is None:
            raise PydanticCustomError("rule", "Please enter Enrollment Id (or the line's Sim)")
        return self

    def __repr__(self) -> str:  # the old account's data: never in a log line
        return f"CreatePortin(enrollment_id={self.enrollment_id!r})"


class PortRecord(Shape):
    portin_status: str
    resolution_description: str
    carrier_response: str
    request_datetime: str
    response_datetime: str

    @classmethod
    def of(cls, view: PortView) -> PortRecord:
        return cls(
            portin_status=view.status,
            resolution_description=view.resolution_description or "",
            carrier_response=view.carrier_response or "",
            request_datetime=view.request_datetime or "",
            response_datetime=view.response_datetime or "",
        )


class PortQuery(Shape):
    records: list[PortRecord]


class PortUpdate(Shape):
    enroll_id: str
    portin_status: str


class PortEligibility(Shape):
    port_number: str
    eligible: str
    current_carrier: str
    current_carrier_name: str
    reason: str | None = omitted_when_none()

    @classmethod
    def of(cls, found: PortEligibilityReply) -> PortEligibility:
        return cls(
            port_number=found.port_number,
            eligible="Y" if found.eligible else "N",
            current_carrier=found.current_carrier,
            current_carrier_name=found.current_carrier_name,
            reason=found.reason or None,
        )


class PortListRecord(Shape):
    port_subscriber_id: int  # the port order's number (PortIn.subscriber_id): what submit_portin names it by
    enroll_id: str  # the line the port brings the number to
    new_esn: str  # that line's SIM: ICCID, or ESN
    old_esn: str  # the SIM the number had at the losing carrier, when the port request gave it
    portin_status: str
    number_to_port: str
    carrier: str
    attempt_count: int  # submissions: the first and each resubmission with corrections
    portin_company: str
    account_number: str  # its last 4 only
    first_name: str
    last_name: str
    address_one: str
    city: str
    state: str
    zip_code: str
    resolution_description: str
    request_datetime: str


class PortList(Shape):
    records: list[PortListRecord]


class PortCreateResult(Shape):
    accountId: str
    portRequestNumber: str


class PortCreated(Shape):
    MDN: str
    REFRENCENO: str  # sic: the original's spelling
    RESULT: PortCreateResult


PORT_QUERY = PortQuery(records=[PortRecord(
    portin_status="CONFIRMED", resolution_description="", carrier_response="Port confirmed",
    request_datetime="2026-11-22T10:15:02+00:00", response_datetime="2026-11-22T10:15:32+00:00",
)])  # fmt: skip
PORT_UPDATE = PortUpdate(enroll_id="EA7KQ2M4XZP9R3TBWVC", portin_status="SUBMITTED")
PORT_ELIGIBILITY = PortEligibility(
    port_number="4045551234", eligible="Y", current_carrier="TMB", current_carrier_name="T-Mobile USA"
)
PORT_LIST = PortList(records=[PortListRecord(
    port_subscriber_id=4829137465, enroll_id="EA7KQ2M4XZP9R3TBWVC", new_esn="8901260963212345678",
    old_esn="8901410321987654321", portin_status="SUBMITTED",
    number_to_port="4045551234", carrier="TMB", attempt_count=1, portin_company="T-Mobile USA", account_number="6789",
    first_name="John", last_name="Doe", address_one="1 Main St", city="Atlanta", state="GA", zip_code="30301",
    resolution_description="", request_datetime="2026-11-22T10:15:02+00:00",
)])  # fmt: skip
PORT_CREATED = PortCreated(
    MDN="4045551234", REFRENCENO="PORT_CREATE_EA7KQ2M4XZP9R3TBWVC",
    RESULT=PortCreateResult(accountId="482913746", portRequestNumber="PRT5K2M9Q4XZ"),
)  # fmt: skip


def not_awaiting_corrections(status: str) -> str:
    """Why corrections are refused: update_portin's answer and PortInWorkflow.correct's validator say the same."""
    return f"The port-in is {status}; corrections are accepted only when it is {PortStatus.RESOLUTION_REQUIRED}"


def same_state(one: PortView, other: PortView) -> bool:
    """Whether two answers say the same about the port: status and resolution. The carrier's RESPONSE_DATETIME
    changes on every answer, so comparing whole answers would make every poll news."""
    said = attrgetter("status", "resolution_code", "resolution_description")
    return said(one) == said(other)


async def get_port(session: Session, enrollment_id: str) -> PortIn:
    """The port-in order of this line, or RecordNotFound."""
    port = await session.get(PortIn, enrollment_id)
    if port is None:
        raise RecordNotFound(f"port-in of line {enrollment_id} not found")
    return port


async def ports_of(
    session: Session, *, enrollment_id: str, cust_id: str | None, vendor_id: int
) -> list[tuple[PortIn, Line]]:
    """The port orders of the vendor's line `enrollment_id`, or with `cust_id` of every line of that account, each
    with its line."""
    query = select(PortIn, Line).join(Line, col(Line.enrollment_id) == col(PortIn.enrollment_id))
    query = query.where(Line.vendor_id == vendor_id)
    query = query.where(Line.cust_id == cust_id) if cust_id else query.where(Line.enrollment_id == enrollment_id)
    return list((await session.exec(query.order_by(col(PortIn.enrollment_id)))).all())


def port_number(ref: str) -> int | None:
    """The port order's number `ref` is (digits within PORT_NUMBERS), or None: an enrollment id."""
    return int(ref) if ref.isdigit() and int(ref) in PORT_NUMBERS else None


async def ported_line(session: Session, ref: str, *, vendor_id: int) -> Line | None:
    """The vendor's line whose port order `ref` names, by its number or by the line's enrollment id; None for
    another vendor's (its number names nothing here) or a line without one."""
    number = port_number(ref)
    named = col(PortIn.subscriber_id) == number if number is not None else col(PortIn.enrollment_id) == ref
    query = select(Line).join(PortIn, col(PortIn.enrollment_id) == col(Line.enrollment_id))
    return (await session.exec(query.where(named, col(Line.vendor_id) == vendor_id))).first()


@dataclass(frozen=True)
class PortAdmission:
    """Intake's word on the numbers a request ports: why each one that is taken is refused (the vendor's own port
    in progress says so; another vendor's says only PORT_NOT_NOW), and the orders that gave way to this request."""

    refused: dict[str, str] = field(default_factory=dict)
    cancelled: tuple[str, ...] = ()  # enrollment ids: their PortInWorkflows are told once the request commits


async def admit_ports(
    session: Session, numbers: Collection[str], *, besides: Collection[str], vendor_id: int, hold: timedelta
) -> PortAdmission:
    """Whether these numbers may be ported by the vendor's lines `besides`. Another vendor's order that has waited
    for corrections longer than `hold` gives way: it is CANCELLED here, in the request's transaction (so the
    number's unique index lets this port in, and a refused request cancels nothing), with its events."""
    if not numbers:
        return PortAdmission()
    now = utcnow()
    other_vendors = select(Line.enrollment_id).where(col(Line.vendor_id) != vendor_id)
    gave_way = (
        update(PortIn)
        .where(
            col(PortIn.port_number).in_(numbers),
            col(PortIn.status) == PortStatus.RESOLUTION_REQUIRED,
            col(PortIn.held_since) <= now - hold,
            col(PortIn.enrollment_id).not_in(besides),
            col(PortIn.enrollment_id).in_(other_vendors),
        )
        .values(status=PortStatus.CANCELLED, carrier_response=HOLD_ENDED, responded_at=now, held_since=None)
        .returning(col(PortIn.enrollment_id))
    )
    cancelled = tuple(sorted(str(eid) for (eid,) in await session.rows(gave_way)))
    for line in (await session.exec(select(Line).where(col(Line.enrollment_id).in_(cancelled)))).all():
        eid, previous = line.enrollment_id, PortStatus.RESOLUTION_REQUIRED.value
        record(session, eid, EventType.PORT_STATUS_CHANGED, line=line, status=PortStatus.CANCELLED, previous=previous)
        record(session, eid, EventType.PORT_CANCELLED, line=line, reason=HOLD_ENDED)
    taken = (
        select(PortIn.port_number, Line.vendor_id)
        .join(Line, col(Line.enrollment_id) == col(PortIn.enrollment_id))
        .where(
            col(PortIn.port_number).in_(numbers),
            col(PortIn.status).in_(IN_PROGRESS),
            col(PortIn.enrollment_id).not_in(besides),
        )
    )
    refused = {
        number: PORT_IN_PROGRESS if owner == vendor_id else PORT_NOT_NOW
        for number, owner in (await session.exec(taken)).all()
    }
    return PortAdmission(refused, cancelled)


def second_port(clash: BaseException) -> bool:
    """Whether a refused write was a second port in progress of one number (PostgreSQL names the index,
    SQLite the column)."""
    text = str(getattr(clash, "orig", clash))
    return "uq_port_in_progress" in text or "port_in.port_number" in text


def number_taken(clash: BaseException) -> bool:
    """Whether a refused write drew a port number another order holds (its unique index: PostgreSQL names it,
    SQLite the column); a new draw is the answer."""
    return "subscriber_id" in str(getattr(clash, "orig", clash))


async def port_moved(session: Session, port: PortIn, view: PortView) -> None:
    """Before a port's status is stored: a change is recorded, and a resolution, completion or cancellation
    besides."""
    status = view.status
    if status == port.status:
        return
    eid, line = port.enrollment_id, await session.get(Line, port.enrollment_id)
    record(session, eid, EventType.PORT_STATUS_CHANGED, line=line, status=status, previous=port.status)
    if status == PortStatus.RESOLUTION_REQUIRED:
        record(session, eid, EventType.PORT_RESOLUTION_REQUIRED, line=line, resolution=view.resolution_description)
    elif status == PortStatus.COMPLETED:
        record(session, eid, EventType.PORT_COMPLETED, line=line, ported_number=port.port_number)
    elif status == PortStatus.CANCELLED:
        reason = view.resolution_description or view.carrier_response
        record(session, eid, EventType.PORT_CANCELLED, line=line, reason=reason)


async def store_view(session: Session, port: PortIn, view: PortView) -> None:
    """The port's state as reported, with its events; the time it began to wait for corrections is kept while it
    waits. A port that gave way to another vendor's (admit_ports) stays CANCELLED whatever comes after."""
    if port.status == PortStatus.CANCELLED != view.status:
        return
    await port_moved(session, port, view)
    waiting = view.status == PortStatus.RESOLUTION_REQUIRED
    port.held_since = (port.held_since or utcnow()) if waiting else None
    port.status = view.status
    port.resolution_code, port.resolution_description = view.resolution_code, view.resolution_description
    port.carrier_response = (view.carrier_response or "")[:200] or None
    port.responded_at = utcnow()
    session.add(port)


@dataclass(frozen=True)
class PortOutLimits:
    """LINEUP_PORT_OUT_*: this many wrong account/PIN checks of a held number within `window` lock its ports for
    `lock`."""

    failures: int = 5
    window: timedelta = timedelta(hours=24)
    lock: timedelta = timedelta(hours=24)

    @classmethod
    def of(cls, porting: PortingSettings) -> PortOutLimits:
        return cls(
            porting.out_failure_limit,
            timedelta(hours=porting.out_failure_window_hours),
            timedelta(hours=porting.out_lock_hours),
        )


@dataclass(frozen=True)
class PortOutVerdict:
    """A held number's check: `passed` (the right account and PIN, and its ports not locked), else refused; the
    wrong checks counted in its window so far, and whether its ports are locked now."""

    passed: bool
    failures: int
    locked: bool


async def check_port_out(
    session: Session, number: str, *, matches: bool, limits: PortOutLimits, now: datetime | None = None
) -> PortOutVerdict:
    """The port-out check of a number Lineup holds, counted: a locked number is refused (right or wrong, and not
    counted); a wrong account or PIN counts one, and the limit's count locks the number for `limits.lock`. The
    number's row is locked first (an upsert takes the row's lock on PostgreSQL; SQLite's writers go one at a time),
    so parallel guesses are counted one after another and none is checked past the limit. A right check leaves the
    count and any lock as they are. Within the caller's write transaction."""
    now = now or utcnow()
    guard = table(PortOutGuard.__tablename__).c
    values = {"port_number": number, "failures": 0}
    failures, until = await insert_or_lock(
        session, PortOutGuard, values, key="port_number", returning=("failures", "locked_until")
    )
    if isinstance(until, datetime) and until > now:
        return PortOutVerdict(False, int(str(failures)), True)
    if matches:
        return PortOutVerdict(True, int(str(failures)), False)
    # A window that has run out, or a lock that has ended, starts the count afresh.
    fresh = (guard.window_start.is_(None)) | (guard.window_start <= now - limits.window) | (guard.locked_until <= now)
    counted = case((fresh, 1), else_=guard.failures + 1)
    counting = (
        update(PortOutGuard)
        .where(guard.port_number == number)
        .values(
            failures=counted,
            window_start=case((fresh, literal(now, UTCDateTime())), else_=guard.window_start),
            locked_until=case((counted >= limits.failures, literal(now + limits.lock, UTCDateTime())), else_=None),
        )
        .returning(guard.failures, guard.locked_until)
    )
    [(failures, until)] = await session.rows(counting)
    return PortOutVerdict(False, int(str(failures)), until is not None)


async def vendor_of_line(session: Session, enrollment_id: str) -> str | None:
    """The code of the vendor whose line this is (what the carrier knows it by), None for no such line."""
    query = select(Vendor.code).join(Line, col(Line.vendor_id) == col(Vendor.id))
    found: str | None = (await session.exec(query.where(col(Line.enrollment_id) == enrollment_id))).first()
    return found


async def take(db: Database, *, digest: str, enrollment_id: str, polls_per_hour: int, keep: timedelta) -> Taken:
    """Records the push once (its digest unique: a replay, even one arriving at the same moment, is REPLAYED) and
    whether it may make its port poll; pushes older than `keep` are purged meanwhile."""
    now = utcnow()
    polled = select(func.count()).where(
        col(PortPush.enrollment_id) == enrollment_id,
        col(PortPush.signalled),
        col(PortPush.received_at) >= now - POLL_WINDOW,
    )
    try:
        async with db.transaction() as session:
            await session.execute(delete(PortPush).where(col(PortPush.received_at) < now - max(keep, POLL_WINDOW)))
            signalled = int((await session.exec(polled)).one()) < polls_per_hour
            session.add(PortPush(digest=digest, enrollment_id=enrollment_id, signalled=signalled, received_at=now))
            await session.flush()
    except IntegrityError:
        return Taken.REPLAYED
    return Taken.POLL if signalled else Taken.WITHIN_LIMIT


async def forget(db: Database, digest: str) -> None:
    """A push whose poll could not be asked for: the carrier's next delivery of it is taken as new."""
    async with db.transaction() as session:
        await session.execute(delete(PortPush).where(col(PortPush.digest) == digest))
