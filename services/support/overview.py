"""The console's overview (`/console`): one vendor's operations at a glance, from the event log and the tables
alone (no Prometheus, no carrier, no Temporal): lines activated per hour over the last 48 hours, lines stuck now
grouped by error, ports pending by age and losing carrier, carrier refusals and outages per hour by carrier,
webhook endpoints failing and mail undelivered. Each panel is one aggregate query in a short transaction of its
own, so a panel that cannot be read is named on the page and the others still show."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TypeVar

from sqlalchemy.exc import SQLAlchemyError

from dispatch.context import Context
from models.carriers import CARRIER_NAMES
from models.clock import utcnow
from persistence import overview as queries
from persistence.overview import BANDS, AgeBands, FailingEndpoint, MailCounts, StuckGroup
from persistence.transaction import DbSession
from services.support import retries as ops

HOURS = 48
ERROR_GROUPS = 12  # error texts listed; the stuck page has every line
ENDPOINTS_SHOWN = 20
log = logging.getLogger("lineup.console")
T = TypeVar("T")


@dataclass(frozen=True)
class CarrierTrouble:
    """One carrier's refusals and outages per hour, aligned with Overview.hours."""

    carrier: str
    refused: list[int]
    outages: list[int]

    @property
    def total(self) -> int:
        return sum(self.refused) + sum(self.outages)


@dataclass(frozen=True)
class PortAges:
    """Pending ports: per carrier, the count in each age band (BANDS order)."""

    by_carrier: dict[str, list[int]]


@dataclass
class Overview:
    """What the page shows; a panel left None could not be read (its name is in `unread`)."""

    now: datetime
    hours: list[datetime]  # the start of each hour, oldest first
    activations: list[int] | None = None
    stuck: list[StuckGroup] | None = None
    ports: PortAges | None = None
    carriers: list[CarrierTrouble] | None = None
    endpoints: list[FailingEndpoint] | None = None
    mail: MailCounts | None = None
    unread: list[str] = field(default_factory=list)


def hours_ending(now: datetime) -> list[datetime]:
    """The last HOURS hours, this one included, each as the moment it began (UTC)."""
    this_hour = now.replace(minute=0, second=0, microsecond=0)
    return [this_hour - timedelta(hours=back) for back in range(HOURS - 1, -1, -1)]


def bucket(hour: datetime) -> str:
    """An hour as persistence.overview buckets it."""
    return hour.strftime("%Y-%m-%d %H")


async def overview(*, ctx: Context) -> Overview:
    """The vendor's overview; every figure is the signed-in agent's vendor's only."""
    now = utcnow()
    view = Overview(now=now, hours=hours_ending(now))
    vendor, since, keys = ctx.caller.vendor_id, view.hours[0], [bucket(hour) for hour in view.hours]
    known = {code: code for code in CARRIER_NAMES} | dict(ctx.settings.systems.carrier_alias_map)

    async def activations(session: DbSession) -> list[int]:
        counted = await queries.activations_per_hour(session, vendor_id=vendor, since=since)
        return [counted.get(key, 0) for key in keys]

    async def stuck(session: DbSession) -> list[StuckGroup]:
        return await queries.stuck_by_error(session, ops.waiting(ctx.settings), vendor_id=vendor, groups=ERROR_GROUPS)

    async def ports(session: DbSession) -> PortAges:
        bands = AgeBands(now - timedelta(hours=1), now - timedelta(days=1), now - timedelta(days=3))
        counted = await queries.ports_pending(session, bands, vendor_id=vendor, carriers=known)
        return PortAges(
            {
                carrier: [counted.get((band, carrier), 0) for band in BANDS]
                for carrier in sorted({carrier for _, carrier in counted})
            }
        )

    async def carriers(session: DbSession) -> list[CarrierTrouble]:
        counted = await queries.carrier_trouble_per_hour(session, vendor_id=vendor, since=since, carriers=known)
        names = sorted({carrier for _, carrier, _ in counted})
        return [
            CarrierTrouble(
                name,
                [counted.get((key, name, "refused"), 0) for key in keys],
                [counted.get((key, name, "outage"), 0) for key in keys],
            )
            for name in names
        ]

    async def endpoints(session: DbSession) -> list[FailingEndpoint]:
        return await queries.failing_endpoints(session, vendor_id=vendor, limit=ENDPOINTS_SHOWN)

    async def mail(session: DbSession) -> MailCounts:
        return await queries.mail_undelivered(session, vendor_id=vendor, since=since)

    await ctx.uow.commit_before_wait()  # each panel in its own transaction: one that fails leaves the others readable
    view.activations = await _panel(ctx, view, "Lines activated", activations)
    view.stuck = await _panel(ctx, view, "Lines stuck now", stuck)
    view.ports = await _panel(ctx, view, "Ports pending", ports)
    view.carriers = await _panel(ctx, view, "Carrier refusals and outages", carriers)
    view.endpoints = await _panel(ctx, view, "Webhook endpoints failing", endpoints)
    view.mail = await _panel(ctx, view, "Mail undelivered", mail)
    return view


async def _panel(ctx: Context, view: Overview, name: str, read: Callable[[DbSession], Awaitable[T]]) -> T | None:
    """One panel's query; a database error leaves the panel out and names it, instead of failing the page."""
    try:
        async with ctx.uow.transaction() as session:
            return await read(session)
    except SQLAlchemyError as error:
        log.warning("overview panel unreadable", extra={"fields": {"panel": name, "error": type(error).__name__}})
        view.unread.append(name)
        return None
