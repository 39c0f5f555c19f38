"""The support domain's data: the console's sessions and the workers' heartbeats; the sweep's messages; `/ops`'
requests and answers and the console's forms; and the queries of support's work: the lines waiting for it and
their retry claims, the console's pages and sign-in, the overview's figures and the metrics snapshot."""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Annotated

from pydantic import ConfigDict, Field, StringConstraints, model_validator
from pydantic_core import PydanticCustomError
from sqlalchemy import (
    ColumnElement,
    Executable,
    Select,
    SQLColumnExpression,
    String,
    and_,
    case,
    delete,
    exists,
    false,
    func,
    insert,
    literal,
    nulls_last,
    or_,
    update,
)
from sqlalchemy import select as select_rows
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.functions import FunctionElement
from sqlmodel import Field as Column
from sqlmodel import SQLModel, col, select

from models import webhooks
from models.auth import Agent, AgentRef, Vendor, digest
from models.db import Database, Session, database_unavailable
from models.enrollment.lines import EnrollmentOrder, Line, LineStatus, Pacing, Plan
from models.envelope import Shape
from models.events import EventType, LineEvent, WebhookDelivery, WebhookEndpoint
from models.mail import MailDelivery, MailOutbox, MailStatus
from models.observability import Snapshot
from models.porting import TERMINAL_PORT_STATES, PortAccountFields, PortIn, PortStatus
from models.settings import Settings
from models.types import (
    ActionRequest,
    Alnum,
    BlankIsAbsent,
    ConditionalFields,
    Esn,
    Iccid,
    Text32,
    Text100,
    WellFormedText,
    YesNo,
    sent,
    utcnow,
)

log = logging.getLogger("lineup.metrics")

# What support reads as the last error of a line intake stored while Temporal was away (RECEIVED, no workflow).
NEVER_STARTED = "Never started: the workflow engine was unavailable when it was accepted"
A_YEAR_OF_MINUTES = 525_600
BANDS = ("under 1 h", "1–24 h", "1–3 days", "older")  # the pending ports' age bands
AGE_LABELS = dict(zip(BANDS, ("under_1h", "1h_to_24h", "1d_to_3d", "over_3d"), strict=True))  # as metric labels
ACTIVATED = (EventType.ACTIVATED.value, EventType.ACTIVATED_LATER.value)
OUTAGE_MARK = "is unavailable"  # in a stuck event's error: the step kept finding the carrier down (adapters.http)
OTHER = "other"  # a carrier code that is none of the known ones: a label stays one of a known few
SAMPLES = 5  # line ids shown per error group


class ConsoleSession(SQLModel, table=True):
    __tablename__ = "console_session"

    id: int | None = Column(default=None, primary_key=True)
    token_hash: str = Column(max_length=64, unique=True)  # sha256 hex of the cookie; the cookie is never stored
    agent_id: int = Column(foreign_key="agent.id", index=True)
    vendor_id: int = Column(foreign_key="vendor.id")
    ip_address: str | None = Column(default=None, max_length=45)
    started_at: datetime = Column(default_factory=utcnow)
    # Moved by every request; a session idle past LINEUP_CONSOLE_IDLE_MINUTES is over (and deleted when seen).
    last_seen_at: datetime = Column(default_factory=utcnow, index=True)


class WorkerHeartbeat(SQLModel, table=True):
    """Each worker's last sign of life: /readyz asks it, since a frozen process stays a registered poller for a
    minute or more."""

    __tablename__ = "worker_heartbeat"

    identity: str = Column(primary_key=True, max_length=200)  # <pid>@<host>:<task queue>
    task_queue: str = Column(max_length=200, index=True)
    seen_at: datetime = Column(default_factory=utcnow)


@dataclass(frozen=True)
class Sweep:
    """Input of SweepWorkflow (run by the `lineup-sweep` schedule)."""

    grace_seconds: float = 120.0  # a row younger than this may still be starting its own workflow
    token_retention_hours: float = 24.0  # used and expired tokens are kept this long for the audit trail
    pacing: Pacing = field(default_factory=Pacing)
    proof_retention_days: float = 365.0  # password-change proof images are purged this long after their change


@dataclass(frozen=True)
class LeftBehind:
    """What a write-then-start pair left behind: a row written, its workflow never started."""

    orders: list[EnrollmentOrder] = field(default_factory=list)
    mails: list[MailDelivery] = field(default_factory=list)


@dataclass(frozen=True)
class SweepReport:
    enrollments_started: int = 0
    mails_started: int = 0
    tokens_purged: int = 0


class ListStuckEnrollments(ActionRequest):
    """Lines waiting for support (STUCK, or RECEIVED and never started), longest waiting first."""

    limit: int = Field(default=100, ge=1, le=500)


class RetryEnrollment(ActionRequest, ConditionalFields):
    """Resumes one waiting line (`enrollment_id`), or with `all_stuck` Y every waiting line of the vendor,
    narrowed by `error_contains` and `stuck_minutes`: a stuck line's workflow tries its failed step again, a
    line that never started has its order's workflow started."""

    enrollment_id: Alnum | None = None
    all_stuck: YesNo | None = None
    error_contains: Text100 | None = Field(default=None, description="Part of the last error (any case); all_stuck Y")
    stuck_minutes: int | None = Field(
        default=None, ge=1, le=A_YEAR_OF_MINUTES, description="Waiting at least this many minutes; all_stuck Y"
    )

    @classmethod
    def required_when(cls, data: Mapping[str, object]) -> dict[str, list[str]]:
        """One line needs its enrollment id; a bulk retry (`all_stuck` Y) names none."""
        if data.get("all_stuck") == "Y":
            return {}
        return {"": [] if sent(data, "enrollment_id") else ["enrollment_id"]}

    @model_validator(mode="after")
    def _one_or_all(self) -> RetryEnrollment:
        if self.bulk and self.enrollment_id is not None:
            raise PydanticCustomError("rule", "Send either enrollment_id or all_stuck Y, not both")
        if not self.bulk and (self.error_contains is not None or self.stuck_minutes is not None):
            raise PydanticCustomError("rule", "error_contains and stuck_minutes narrow a retry with all_stuck Y")
        return self

    @property
    def bulk(self) -> bool:
        return self.all_stuck == "Y"


class ConsoleForm(WellFormedText):
    """A console page's form: its text checked as the API's bodies are (a NUL is the field's error, not a 500)."""

    model_config = ConfigDict(extra="ignore", frozen=True)


class SignIn(ConsoleForm, BlankIsAbsent):
    """An agent's username is its vendor's own: the vendor id picks the agent when several vendors have one of
    that name (decisions.md, "Agents per vendor"); blank otherwise."""

    # A longer name names no agent, and argon2 has nothing to gain from a longer secret.
    username: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)] = Field(
        title="Username"
    )
    password: Annotated[str, StringConstraints(min_length=1, max_length=128)] = Field(title="Password")
    vendor_id: Text32 | None = Field(default=None, title="Vendor id")


class Search(ConsoleForm):
    """An enrollment id (or parent enrollment id), an MDN or a customer id: all letters and digits."""

    q: Alnum = Field(title="Enrollment id, MDN or customer id")


class LineAction(ConsoleForm):
    """Retry or Activate, posted from a row: the line's enrollment id comes in the path."""

    enrollment_id: Alnum


class FixForm(ConsoleForm, BlankIsAbsent):
    """A correction form: a field left blank is not corrected; at least one must be given."""

    def given(self) -> dict[str, str]:
        return {name: value for name, value in self.model_dump().items() if isinstance(value, str)}

    @model_validator(mode="after")
    def _something(self) -> FixForm:
        if not self.given():
            raise PydanticCustomError("rule", "Please enter at least one corrected field")
        return self


class SimReplacement(FixForm):
    """A new SIM for a stuck line, checked as at creation (esn, or uiccid with its check digit)."""

    esn: Esn | None = Field(default=None, title="ESN")
    uiccid: Iccid | None = Field(default=None, title="SIM (ICCID)")


class PortFix(PortAccountFields, FixForm):
    """Corrected old-account data of a line's port-in (the same fields and rules as update_portin)."""


class RetryMany(ConsoleForm, BlankIsAbsent):
    """The console's bulk retry: every stuck line whose last error contains the text and that waited long enough."""

    error_contains: Text100 | None = None
    stuck_minutes: int | None = Field(default=None, ge=1, le=A_YEAR_OF_MINUTES)


class WebhookForm(ConsoleForm):
    url: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=500)] = Field(title="URL")
    events: Annotated[str, StringConstraints(strip_whitespace=True, max_length=1000)] = ""


class StuckLine(Shape):
    enrollment_id: str
    parent_enrollment_id: str
    status: str
    last_error: str
    since: str


class Retried(Shape):
    """One line: RETRYING (a stuck line's workflow tries again) or STARTED (its order's workflow started)."""

    enrollment_id: str
    status: str


class RetriedAll(Shape):
    """all_stuck Y: the lines resumed by this call, and how many more match for the next one."""

    retried: list[str]
    remaining: int


STUCK = [
    StuckLine(
        enrollment_id="EA7KQ2M4XZP9R3TBWVC", parent_enrollment_id="EA7KQ2M4XZP9R3TBWVC", status="STUCK",
        last_error="The carrier is unavailable", since="2026-11-22T10:15:02+00:00",
    )
]  # fmt: skip
RETRIED = Retried(enrollment_id="EA7KQ2M4XZP9R3TBWVC", status="RETRYING")


@dataclass(frozen=True)
class Waiting:
    """The lines waiting for support: STUCK ones, and RECEIVED ones older than the sweep's grace (intake stored
    them, their workflow never started). Optionally narrowed by their last error and how long they waited."""

    received_before: datetime  # a younger RECEIVED line may still be starting its own workflow
    error_contains: str | None = None  # case-insensitive, in the last error as support reads it
    waiting_since: datetime | None = None  # waiting at least since then

    def clause(self, vendor_id: int | None = None) -> ColumnElement[bool]:
        """The condition, of one vendor's lines (every vendor's when vendor_id is None)."""
        stuck: list[ColumnElement[bool]] = [col(Line.status) == LineStatus.STUCK]
        received: list[ColumnElement[bool]] = [
            col(Line.status) == LineStatus.RECEIVED,
            col(Line.created_at) < self.received_before,
        ]
        if self.waiting_since is not None:
            stuck.append(col(Line.status_since) <= self.waiting_since)
            received.append(col(Line.created_at) <= self.waiting_since)
        if self.error_contains:
            wanted = self.error_contains.lower()
            stuck.append(func.lower(col(Line.last_error)).contains(wanted, autoescape=True))
            if wanted not in NEVER_STARTED.lower():
                received.append(false())
        waiting = or_(and_(*stuck), and_(*received))
        return waiting if vendor_id is None else and_(col(Line.vendor_id) == vendor_id, waiting)


@dataclass(frozen=True)
class ConsoleAgent:
    """The signed-in agent and its vendor's code: everything the console shows is that vendor's."""

    agent: AgentRef
    vendor_code: str


@dataclass(frozen=True)
class AgentLogin(ConsoleAgent):
    """An agent as the console's sign-in reads it: besides, the hash to verify and its vendor's state."""

    password_hash: str
    vendor_active: bool


@dataclass(frozen=True)
class SessionLimits:
    idle: timedelta  # unused this long: over
    most: timedelta  # begun this long ago: over, however busy

    @classmethod
    def of(cls, settings: Settings) -> SessionLimits:
        auth = settings.auth
        return cls(timedelta(minutes=auth.console_idle_minutes), timedelta(hours=auth.console_max_hours))


@dataclass(frozen=True)
class StuckGroup:
    error: str
    lines: int
    oldest: datetime
    samples: tuple[str, ...]  # enrollment ids, longest waiting first


@dataclass(frozen=True)
class FailingEndpoint:
    public_id: str
    active: bool
    failing_since: datetime | None
    undelivered: int  # deliveries queued, sending or failed
    last_status: int | None  # the receiver's last HTTP status (None: it did not answer)


@dataclass(frozen=True)
class MailCounts:
    queued: int
    oldest_queued: datetime | None
    rejected: int  # refused for good since the window's start


@dataclass(frozen=True)
class Workers:
    """Which task queue this deployment's workers poll, and how fresh a live one's heartbeat is."""

    task_queue: str = "lineup"
    stale_seconds: float = 30.0


async def waiting_lines(session: Session, waiting: Waiting, *, vendor_id: int | None, limit: int) -> list[Line]:
    """Lines waiting for support, longest waiting first (all vendors when vendor_id is None)."""
    return await _longest_in_status(session, waiting.clause(vendor_id), limit=limit)


async def count_waiting(session: Session, waiting: Waiting, *, vendor_id: int | None) -> int:
    return await _count(session, Line, waiting.clause(vendor_id))


def shown_error(line: Line) -> str:
    """The last error as support reads it; a RECEIVED line has none of its own."""
    return line.last_error or (NEVER_STARTED if line.status == LineStatus.RECEIVED else "")


async def claim_retries(session: Session, enrollment_ids: list[str]) -> set[str]:
    """Support's retry of these lines, taken once: one conditional write moves each line still STUCK to
    RETRYING (its workflow moves it on). The ids it moved; of N retries of one line at once, one gets it."""
    if not enrollment_ids:
        return set()
    moved = await session.execute(
        update(Line)
        .where(col(Line.enrollment_id).in_(enrollment_ids), col(Line.status) == LineStatus.STUCK)
        # Stamped: a claim older than the sweep's grace never reached its workflow (release_unsent_retries).
        .values(status=LineStatus.RETRYING, status_since=utcnow())
        .returning(col(Line.enrollment_id))
    )
    return set(moved.scalars().all())


async def release_unsent_retries(session: Session, claimed_before: datetime) -> list[str]:
    """Claims whose signal never left (the API died between the RETRYING write and the signal): a workflow
    that took its retry has moved its line on within seconds, so a line RETRYING since before the sweep's grace
    is STUCK again, for support (or its own timer) to retry. A retry still on its way finds the line STUCK and
    moves it on as usual. The ids released."""
    return sorted(await _stuck_again(session, col(Line.status_since) < claimed_before))


async def release_retries(session: Session, enrollment_ids: list[str]) -> None:
    """Retries that never reached their workflow (the engine was away): the lines are STUCK again."""
    if enrollment_ids:
        await _stuck_again(session, col(Line.enrollment_id).in_(enrollment_ids))


async def agent_logins(session: Session, username: str, *, vendor_code: str | None) -> list[AgentLogin]:
    """The agents with this username, with their vendors: of every vendor (a username is unique within its
    vendor only), or of the one named."""
    query = select(Agent, Vendor).join(Vendor, col(Vendor.id) == col(Agent.vendor_id)).where(Agent.username == username)
    if vendor_code is not None:
        query = query.where(Vendor.code == vendor_code.upper())
    rows = (await session.exec(query.order_by(col(Agent.id)))).all()
    return [
        AgentLogin(AgentRef.of_entity(agent), vendor.code, agent.password_hash, vendor.active) for agent, vendor in rows
    ]


async def open_session(
    session: Session, *, agent_id: int, vendor_id: int, ip: str | None, limits: SessionLimits
) -> str:
    """A new session's token. Sessions over (of anyone) are deleted here, so the table holds little more than
    the sessions in use."""
    token, now = secrets.token_urlsafe(32), utcnow()
    over = or_(
        col(ConsoleSession.last_seen_at) <= now - limits.idle, col(ConsoleSession.started_at) <= now - limits.most
    )
    await session.execute(delete(ConsoleSession).where(over))
    row = {"token_hash": digest(token), "agent_id": agent_id, "vendor_id": vendor_id, "ip_address": ip}
    await session.execute(insert(ConsoleSession).values({**row, "started_at": now, "last_seen_at": now}))
    return token


async def touch_session(session: Session, token: str, *, limits: SessionLimits) -> int | None:
    """The session's agent id, moving its idle clock; None (and the row deleted) once it sat idle too long,
    lasted longer than the limits allow, or its agent's password changed after it began (the old password's
    holder must not keep a way in). The conditional UPDATE decides alone, so a request racing a limit sees one
    answer."""
    now = utcnow()
    password_changed = exists().where(
        col(Agent.id) == col(ConsoleSession.agent_id), col(Agent.password_changed_at) >= col(ConsoleSession.started_at)
    )
    touched = await session.execute(
        update(ConsoleSession)
        .where(col(ConsoleSession.token_hash) == digest(token), col(ConsoleSession.last_seen_at) > now - limits.idle)
        .where(col(ConsoleSession.started_at) > now - limits.most, ~password_changed)
        .values(last_seen_at=now)
        .returning(col(ConsoleSession.agent_id))
    )
    if (row := touched.first()) is None:
        await end_session(session, token)
        return None
    return int(row[0])


async def end_session(session: Session, token: str) -> None:
    await session.execute(delete(ConsoleSession).where(col(ConsoleSession.token_hash) == digest(token)))


async def active_agent(session: Session, agent_id: int) -> ConsoleAgent | None:
    """The agent and its vendor's code while both are active; None once either was disabled."""
    query = (
        select(Agent, Vendor.code)
        .join(Vendor, col(Vendor.id) == col(Agent.vendor_id))
        .where(col(Agent.id) == agent_id, col(Agent.active), col(Vendor.active))
    )
    row = (await session.exec(query)).first()
    return ConsoleAgent(AgentRef.of_entity(row[0]), row[1]) if row is not None else None


async def lines_in_status(session: Session, status: LineStatus, *, vendor_id: int, limit: int) -> list[Line]:
    """The vendor's lines in `status`, longest in it first."""
    return await _longest_in_status(
        session, and_(col(Line.vendor_id) == vendor_id, col(Line.status) == status), limit=limit
    )


async def ports_in_status(
    session: Session, status: PortStatus, *, vendor_id: int, limit: int
) -> list[tuple[Line, PortIn]]:
    """The vendor's port-in orders in `status` with their lines, longest waiting first."""
    query = (
        select(Line, PortIn)
        .join(PortIn, col(PortIn.enrollment_id) == col(Line.enrollment_id))
        .where(Line.vendor_id == vendor_id, PortIn.status == status)
        .order_by(col(PortIn.responded_at), col(Line.enrollment_id))
    )
    return [(line, port) for line, port in (await session.exec(query.limit(limit))).all()]


async def find_lines(session: Session, wanted: str, *, vendor_id: int, limit: int) -> list[tuple[Line, PortIn | None]]:
    """The vendor's lines whose enrollment id, parent enrollment id, MDN, customer id or account id is `wanted`,
    or that port the number `wanted` in, each with its port order if it has one."""
    columns = (Line.enrollment_id, Line.parent_enrollment_id, Line.mdn, Line.customer_id, Line.cust_id)
    query = (
        select(Line, PortIn)
        .outerjoin(PortIn, col(PortIn.enrollment_id) == col(Line.enrollment_id))
        .where(
            Line.vendor_id == vendor_id,
            or_(*(col(column) == wanted for column in columns), col(PortIn.port_number) == wanted),
        )
        .order_by(col(Line.created_at), col(Line.enrollment_id))
    )
    return [(line, port) for line, port in (await session.exec(query.limit(limit))).all()]


async def timelines(session: Session, enrollment_ids: list[str]) -> dict[str, list[LineEvent]]:
    """Each line's events, oldest first: one query for an account's lines, however many."""
    query = select(LineEvent).where(col(LineEvent.enrollment_id).in_(enrollment_ids)).order_by(col(LineEvent.id))
    found: dict[str, list[LineEvent]] = {enrollment_id: [] for enrollment_id in enrollment_ids}
    for event in (await session.exec(query)).all():
        found[event.enrollment_id].append(event)
    return found


async def port_orders(session: Session, enrollment_ids: list[str]) -> dict[str, PortIn]:
    """The port orders of those of these lines that have one, in one query."""
    query = select(PortIn).where(col(PortIn.enrollment_id).in_(enrollment_ids))
    return {port.enrollment_id: port for port in (await session.exec(query)).all()}


async def activations_per_hour(session: Session, *, vendor_id: int, since: datetime) -> dict[str, int]:
    """Lines activated (now or later) per hour since `since`, from the event log."""
    hour = hour_of(col(LineEvent.created))
    query = (
        select_rows(hour, func.count())
        .where(col(LineEvent.vendor_id) == vendor_id, col(LineEvent.type).in_(ACTIVATED))
        .where(col(LineEvent.created) >= since)
        .group_by(hour)
    )
    return await _counts(session, query)


async def stuck_by_error(session: Session, waiting: Waiting, *, vendor_id: int, groups: int) -> list[StuckGroup]:
    """The lines waiting for support now, grouped by their last error (most lines first), each with the ids
    of its longest-waiting few: one query, the samples picked by a window function."""
    error = func.coalesce(
        col(Line.last_error), case((col(Line.status) == LineStatus.RECEIVED, NEVER_STARTED), else_="")
    ).label("error")
    rank = func.row_number().over(partition_by=error, order_by=(col(Line.status_since), col(Line.enrollment_id)))
    waiting_now = (
        select_rows(col(Line.enrollment_id), error, col(Line.status_since).label("since"), rank.label("rank"))
        .where(waiting.clause(vendor_id))
        .subquery()
    )
    samples = [func.max(case((waiting_now.c.rank == n, waiting_now.c.enrollment_id))) for n in range(1, SAMPLES + 1)]
    query = (
        select_rows(waiting_now.c.error, func.count(), func.min(waiting_now.c.since), *samples)
        .group_by(waiting_now.c.error)
        .order_by(func.count().desc(), waiting_now.c.error)
        .limit(groups)
    )
    return [
        StuckGroup(str(text), int(lines), _aware(oldest), tuple(str(i) for i in ids if i is not None))
        for text, lines, oldest, *ids in (await session.execute(query)).all()
    ]


async def ports_pending(
    session: Session, now: datetime, *, vendor_id: int, carriers: Mapping[str, str]
) -> dict[tuple[str, str], int]:
    """Ports not yet final by age band (since requested, else since the line was created) and losing carrier."""
    band = age_band(now).label("band")
    carrier = carrier_label(col(PortIn.current_carrier), carriers).label("carrier")
    query = _pending_ports(band, carrier).where(col(Line.vendor_id) == vendor_id).group_by(band, carrier)
    return {(str(b), str(c)): int(n) for b, c, n in (await session.execute(query)).all()}


async def carrier_trouble_per_hour(
    session: Session, *, vendor_id: int, since: datetime, carriers: Mapping[str, str]
) -> dict[tuple[str, str, str], int]:
    """(hour, carrier, `refused` or `outage`) → events since `since`: the carrier's refusals, and the lines
    that got stuck because the carrier stayed unavailable through their step's retries. The line's carrier is
    the one it asked for, else its plan's."""
    hour = hour_of(col(LineEvent.created))
    refused = col(LineEvent.type) == EventType.CARRIER_REFUSED.value
    outage = and_(col(LineEvent.type) == EventType.STUCK.value, col(LineEvent.data).contains(OUTAGE_MARK))
    kind = case((refused, literal("refused")), else_=literal("outage")).label("kind")
    carrier = carrier_label(func.coalesce(col(Line.carrier), col(Plan.carrier)), carriers).label("carrier")
    query = (
        select_rows(hour, carrier, kind, func.count())
        .select_from(LineEvent)
        .join(Line, col(Line.enrollment_id) == col(LineEvent.enrollment_id))
        .join(Plan, col(Plan.plan_id) == col(Line.plan_id))
        .where(col(LineEvent.vendor_id) == vendor_id, col(LineEvent.created) >= since)
        .where(col(LineEvent.type).in_([EventType.CARRIER_REFUSED.value, EventType.STUCK.value]), or_(refused, outage))
        .group_by(hour, carrier, kind)
    )
    return {(str(h), str(c), str(k)): int(n) for h, c, k, n in (await session.execute(query)).all()}


async def failing_endpoints(session: Session, *, vendor_id: int, limit: int) -> list[FailingEndpoint]:
    """The vendor's endpoints failing now, or disabled for failing, with their undelivered deliveries."""
    stuck = (
        select_rows(
            col(WebhookDelivery.endpoint_id).label("endpoint_id"),
            func.count().label("undelivered"),
            func.max(col(WebhookDelivery.last_status)).label("last_status"),
        )
        .where(col(WebhookDelivery.status).in_(("QUEUED", "SENDING", "FAILED")))
        .group_by(col(WebhookDelivery.endpoint_id))
        .subquery()
    )
    query = (
        select_rows(
            col(WebhookEndpoint.public_id),
            col(WebhookEndpoint.active),
            col(WebhookEndpoint.failing_since),
            func.coalesce(stuck.c.undelivered, 0),
            stuck.c.last_status,
        )
        .outerjoin(stuck, stuck.c.endpoint_id == col(WebhookEndpoint.id))
        .where(col(WebhookEndpoint.vendor_id) == vendor_id)
        .where(or_(col(WebhookEndpoint.failing_since).is_not(None), col(WebhookEndpoint.disabled_reason).is_not(None)))
        .order_by(nulls_last(col(WebhookEndpoint.failing_since)), col(WebhookEndpoint.id))
        .limit(limit)
    )
    return [
        FailingEndpoint(str(pid), bool(active), _aware(since) if since else None, int(n), status)
        for pid, active, since, n, status in (await session.execute(query)).all()
    ]


async def mail_undelivered(session: Session, *, vendor_id: int, since: datetime) -> MailCounts:
    """Mail still queued (and the oldest of it), and mail rejected since `since`: one pass, counts only."""
    status, created = col(MailOutbox.status), col(MailOutbox.created_at)
    queued = status == MailStatus.QUEUED.value
    rejected = and_(status == MailStatus.REJECTED.value, created >= since)
    query = select_rows(
        func.count(case((queued, 1))), func.min(case((queued, created))), func.count(case((rejected, 1)))
    ).where(col(MailOutbox.vendor_id) == vendor_id, status.in_([MailStatus.QUEUED.value, MailStatus.REJECTED.value]))
    waiting, oldest, refused = (await session.execute(query)).one()
    return MailCounts(int(waiting), _aware(oldest) if oldest else None, int(refused))


async def snapshot(db: Database, workers: Workers = Workers()) -> Snapshot:  # frozen: one shared default is safe
    """The database half of a metrics scrape, every vendor's: each figure one aggregate query whose answer is
    bounded by the statuses, bands and task queues there are; every line status and band is listed, zero
    included, so a series never disappears."""
    now = utcnow()
    band = age_band(now).label("band")
    queue, seen = col(WorkerHeartbeat.task_queue), col(WorkerHeartbeat.seen_at)
    async with db.transaction(write=False) as session:
        counted = await _counts(session, select_rows(col(Line.status), func.count()).group_by(col(Line.status)))
        queued = await _count(session, MailOutbox, col(MailOutbox.status) == MailStatus.QUEUED.value)
        ports = await _counts(session, _pending_ports(band).group_by(band))
        failing = await webhooks.failing_by_vendor(session)
        waiting = await webhooks.oldest_undelivered_seconds(session, now)
        heard = seen >= now - timedelta(seconds=workers.stale_seconds)
        alive = await _counts(session, select_rows(queue, func.count()).where(heard).group_by(queue))
    lines = {status.value: counted.get(status.value, 0) for status in LineStatus}
    return Snapshot(
        lines=lines,
        stuck_lines=lines[LineStatus.STUCK.value],
        mail_queued=queued,
        ports_pending={label: ports.get(band, 0) for band, label in AGE_LABELS.items()},
        webhook_endpoints_failing=failing,  # active endpoints whose deliveries fail since their last success
        webhook_oldest_undelivered_seconds=waiting,
        workers_alive={workers.task_queue: 0} | alive,
    )


class SnapshotCache:
    """The last snapshot and when it was read; concurrent scrapes of a stale one wait for one query."""

    def __init__(self, seconds: float, workers: Workers | None = None) -> None:
        self.seconds = seconds
        self.workers = workers or Workers()
        self._value: Snapshot | None = None
        self._read_at = 0.0
        self._lock = asyncio.Lock()

    async def get(self, db: Database) -> Snapshot:
        async with self._lock:
            if self._value is None or time.monotonic() - self._read_at >= self.seconds:
                self._value = await self._read(db)
                self._read_at = time.monotonic()
            return self._value

    async def _read(self, db: Database) -> Snapshot:
        try:
            return await snapshot(db, self.workers)
        except Exception as error:  # only an outage is answered; anything else is raised again
            if not database_unavailable(error):
                raise
            log.warning("metrics: database unavailable", extra={"fields": {"error": type(error).__name__}})
            return Snapshot(database_up=False)


async def beat(db: Database, identity: str, task_queue: str) -> None:
    """This worker is alive now (one writer per identity: update, else insert)."""
    async with db.transaction() as session:
        moved = await session.run(
            update(WorkerHeartbeat).where(col(WorkerHeartbeat.identity) == identity).values(seen_at=utcnow())
        )
        if not moved:
            session.add(WorkerHeartbeat(identity=identity, task_queue=task_queue))


async def stopped(db: Database, identity: str) -> None:
    """A worker that stops says so: readiness need not wait for its row to go stale."""
    async with db.transaction() as session:
        await session.execute(delete(WorkerHeartbeat).where(col(WorkerHeartbeat.identity) == identity))


async def last_beat(session: Session, task_queue: str) -> datetime | None:
    query = select(func.max(WorkerHeartbeat.seen_at)).where(WorkerHeartbeat.task_queue == task_queue)
    found: datetime | None = (await session.exec(query)).one()
    return found


async def _stuck_again(session: Session, claims: ColumnElement[bool]) -> list[str]:
    """The RETRYING lines `claims` picks, STUCK again; their ids."""
    released = update(Line).where(col(Line.status) == LineStatus.RETRYING, claims).values(status=LineStatus.STUCK)
    return list((await session.execute(released.returning(col(Line.enrollment_id)))).scalars().all())


async def _longest_in_status(session: Session, where: ColumnElement[bool], *, limit: int) -> list[Line]:
    query = select(Line).where(where).order_by(col(Line.status_since), col(Line.enrollment_id)).limit(limit)
    return list((await session.exec(query)).all())


async def _counts(session: Session, query: Executable) -> dict[str, int]:
    """A query of (key, count) rows, as a mapping."""
    return {str(key): int(count) for key, count in (await session.execute(query)).all()}


async def _count(session: Session, table: type[SQLModel], where: ColumnElement[bool]) -> int:
    return (await session.exec(select(func.count()).select_from(table).where(where))).one()


def _pending_ports(*columns: ColumnElement[str]) -> Select[*tuple[object, ...]]:
    """`columns` and a count of the ports not yet final, joined to their lines (as age_band reads them)."""
    return (
        select_rows(*columns, func.count())
        .select_from(PortIn)
        .join(Line, col(Line.enrollment_id) == col(PortIn.enrollment_id))
        .where(col(PortIn.status).not_in([status.value for status in TERMINAL_PORT_STATES]))
    )


class hour_of(FunctionElement[str]):  # lower case, as SQLAlchemy's own functions read
    """The UTC hour of a timestamp as text `YYYY-MM-DD HH`."""

    type = String()
    name = "hour_of"
    inherit_cache = True


@compiles(hour_of, "sqlite")
def _hour_sqlite(element: hour_of, compiler: SQLCompiler, **kw: object) -> str:
    return f"substr({compiler.process(element.clauses, **kw)}, 1, 13)"


@compiles(hour_of, "postgresql")
def _hour_postgresql(element: hour_of, compiler: SQLCompiler, **kw: object) -> str:
    return f"to_char(({compiler.process(element.clauses, **kw)}) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24')"


def carrier_label(
    column: SQLColumnExpression[str] | SQLColumnExpression[str | None], known: Mapping[str, str]
) -> ColumnElement[str]:
    """A carrier code as a label: its abbreviation when it names a known carrier (or an alias of one), else
    `other`, so free text a channel typed never becomes a label."""
    upper = func.upper(func.trim(column))
    return case(*((upper == code, literal(abbreviation)) for code, abbreviation in known.items()), else_=literal(OTHER))


def age_band(now: datetime) -> ColumnElement[str]:
    """A pending port's age band (BANDS) at `now`, from its submission, else from its line's creation (it has not
    been submitted yet): for queries that join port_in to line."""
    since = func.coalesce(col(PortIn.requested_at), col(Line.created_at))
    return case(
        (since >= now - timedelta(hours=1), BANDS[0]),
        (since >= now - timedelta(days=1), BANDS[1]),
        (since >= now - timedelta(days=3), BANDS[2]),
        else_=BANDS[3],
    )


def _aware(value: datetime | str) -> datetime:
    """An aggregate's timestamp: MIN() over SQLite's text comes back as text, and without the column's type."""
    moment = datetime.fromisoformat(value) if isinstance(value, str) else value
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
