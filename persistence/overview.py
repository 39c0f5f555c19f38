"""Queries of the console's overview: one vendor's activations, stuck lines, pending ports, carrier trouble,
failing webhook endpoints and undelivered mail, each one aggregate query (GROUP BY in the database) whose answer
is bounded by hours, carriers, error texts or endpoints, never by how many lines or events there are.

Hours are bucketed in SQL as text `YYYY-MM-DD HH` (UTC), one expression per dialect: SQLite keeps a timestamp
as ISO text (its first 13 characters are the hour), PostgreSQL as a timestamptz (formatted at UTC)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import ColumnElement, SQLColumnExpression, String, and_, case, func, literal, nulls_last, or_, select
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.functions import FunctionElement
from sqlmodel import col

from models.events import EventType
from models.statuses import TERMINAL_PORT_STATES, LineStatus, MailStatus
from models.tables.enrollment import Line, Plan
from models.tables.events import LineEvent, WebhookDelivery, WebhookEndpoint
from models.tables.mail import MailOutbox
from models.tables.porting import PortIn
from persistence.support import NEVER_STARTED, Waiting
from persistence.transaction import DbSession

ACTIVATED = (EventType.ACTIVATED.value, EventType.ACTIVATED_LATER.value)
OUTAGE_MARK = "is unavailable"  # in a stuck event's error: the step kept finding the carrier down (adapters.http)
OTHER = "other"  # a carrier code that is none of the known ones: a label stays one of a known few
SAMPLES = 5  # line ids shown per error group


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


async def activations_per_hour(session: DbSession, *, vendor_id: int, since: datetime) -> dict[str, int]:
    """Lines activated (now or later) per hour since `since`, from the event log."""
    hour = hour_of(col(LineEvent.created))
    query = (
        select(hour, func.count())
        .where(col(LineEvent.vendor_id) == vendor_id, col(LineEvent.type).in_(ACTIVATED))
        .where(col(LineEvent.created) >= since)
        .group_by(hour)
    )
    return {str(bucket): int(count) for bucket, count in (await session.execute(query)).all()}


@dataclass(frozen=True)
class StuckGroup:
    error: str
    lines: int
    oldest: datetime
    samples: tuple[str, ...]  # enrollment ids, longest waiting first


async def stuck_by_error(session: DbSession, waiting: Waiting, *, vendor_id: int, groups: int) -> list[StuckGroup]:
    """The lines waiting for support now, grouped by their last error (most lines first), each with the ids
    of its longest-waiting few: one query, the samples picked by a window function."""
    error = func.coalesce(
        col(Line.last_error), case((col(Line.status) == LineStatus.RECEIVED, NEVER_STARTED), else_="")
    ).label("error")
    rank = func.row_number().over(partition_by=error, order_by=(col(Line.status_since), col(Line.enrollment_id)))
    waiting_now = (
        select(col(Line.enrollment_id), error, col(Line.status_since).label("since"), rank.label("rank"))
        .where(col(Line.vendor_id) == vendor_id, waiting.clause())
        .subquery()
    )
    samples = [func.max(case((waiting_now.c.rank == n, waiting_now.c.enrollment_id))) for n in range(1, SAMPLES + 1)]
    query = (
        select(waiting_now.c.error, func.count(), func.min(waiting_now.c.since), *samples)
        .group_by(waiting_now.c.error)
        .order_by(func.count().desc(), waiting_now.c.error)
        .limit(groups)
    )
    found = []
    for text, lines, oldest, *ids in (await session.execute(query)).all():
        found.append(StuckGroup(str(text), int(lines), _aware(oldest), tuple(str(i) for i in ids if i is not None)))
    return found


@dataclass(frozen=True)
class AgeBands:
    """The limits of the pending ports' age bands: requested after `hour` is under 1 h old, and so on."""

    hour: datetime
    day: datetime
    three_days: datetime


BANDS = ("under 1 h", "1–24 h", "1–3 days", "older")


def age_band(bands: AgeBands) -> ColumnElement[str]:
    """A pending port's age band (BANDS), from its submission, else from its line's creation (it has not
    been submitted yet): for queries that join port_in to line."""
    since = func.coalesce(col(PortIn.requested_at), col(Line.created_at))
    return case(
        (since >= bands.hour, BANDS[0]),
        (since >= bands.day, BANDS[1]),
        (since >= bands.three_days, BANDS[2]),
        else_=BANDS[3],
    )


def pending_ports() -> ColumnElement[bool]:
    return col(PortIn.status).not_in([status.value for status in TERMINAL_PORT_STATES])


async def ports_pending(
    session: DbSession, bands: AgeBands, *, vendor_id: int, carriers: Mapping[str, str]
) -> dict[tuple[str, str], int]:
    """Ports not yet final by age band (since requested, else since the line was created) and losing carrier."""
    band = age_band(bands).label("band")
    carrier = carrier_label(col(PortIn.current_carrier), carriers).label("carrier")
    query = (
        select(band, carrier, func.count())
        .select_from(PortIn)
        .join(Line, col(Line.enrollment_id) == col(PortIn.enrollment_id))
        .where(col(Line.vendor_id) == vendor_id, pending_ports())
        .group_by(band, carrier)
    )
    return {(str(b), str(c)): int(n) for b, c, n in (await session.execute(query)).all()}


async def carrier_trouble_per_hour(
    session: DbSession, *, vendor_id: int, since: datetime, carriers: Mapping[str, str]
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
        select(hour, carrier, kind, func.count())
        .select_from(LineEvent)
        .join(Line, col(Line.enrollment_id) == col(LineEvent.enrollment_id))
        .join(Plan, col(Plan.plan_id) == col(Line.plan_id))
        .where(col(LineEvent.vendor_id) == vendor_id, col(LineEvent.created) >= since)
        .where(col(LineEvent.type).in_([EventType.CARRIER_REFUSED.value, EventType.STUCK.value]), or_(refused, outage))
        .group_by(hour, carrier, kind)
    )
    return {(str(h), str(c), str(k)): int(n) for h, c, k, n in (await session.execute(query)).all()}


@dataclass(frozen=True)
class FailingEndpoint:
    public_id: str
    active: bool
    failing_since: datetime | None
    undelivered: int  # deliveries queued, sending or failed
    last_status: int | None  # the receiver's last HTTP status (None: it did not answer)


async def failing_endpoints(session: DbSession, *, vendor_id: int, limit: int) -> list[FailingEndpoint]:
    """The vendor's endpoints failing now, or disabled for failing, with their undelivered deliveries."""
    pending = ("QUEUED", "SENDING", "FAILED")
    stuck = (
        select(
            col(WebhookDelivery.endpoint_id).label("endpoint_id"),
            func.count().label("undelivered"),
            func.max(col(WebhookDelivery.last_status)).label("last_status"),
        )
        .where(col(WebhookDelivery.status).in_(pending))
        .group_by(col(WebhookDelivery.endpoint_id))
        .subquery()
    )
    query = (
        select(
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
    rows = (await session.execute(query)).all()
    return [
        FailingEndpoint(str(pid), bool(active), _aware(since) if since else None, int(n), status)
        for pid, active, since, n, status in rows
    ]


@dataclass(frozen=True)
class MailCounts:
    queued: int
    oldest_queued: datetime | None
    rejected: int  # refused for good since the window's start


async def mail_undelivered(session: DbSession, *, vendor_id: int, since: datetime) -> MailCounts:
    """Mail still queued (and the oldest of it), and mail rejected since `since`: one pass, counts only."""
    status, created = col(MailOutbox.status), col(MailOutbox.created_at)
    queued = status == MailStatus.QUEUED.value
    rejected = and_(status == MailStatus.REJECTED.value, created >= since)
    query = select(
        func.count(case((queued, 1))), func.min(case((queued, created))), func.count(case((rejected, 1)))
    ).where(col(MailOutbox.vendor_id) == vendor_id, status.in_([MailStatus.QUEUED.value, MailStatus.REJECTED.value]))
    waiting, oldest, refused = (await session.execute(query)).one()
    return MailCounts(int(waiting), _aware(oldest) if oldest else None, int(refused))


def _aware(value: datetime | str) -> datetime:
    """An aggregate's timestamp: MIN() over SQLite's text comes back as text, and without the column's type."""
    moment = datetime.fromisoformat(value) if isinstance(value, str) else value
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
