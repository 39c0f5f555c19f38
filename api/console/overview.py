"""The console's first page (`/console`): the signed-in vendor's operations at a glance, its figures from the
event log and the tables (models.support's overview queries), and its charts: the geometry of each (bars, axis
ticks) and its figures as a table, computed here and drawn by the template as inline SVG (overview.html,
autoescaped like every page).

Plain SVG, not a plotting library: every chart is bars, a few dozen rectangles, and the page must load nothing
from another host, run no script and carry no inline style (its Content-Security-Policy allows none). matplotlib
or pygal would add a dependency (numpy and fonts, or their own scripts and inline styles) to the API for what a
hundred lines draw, and their SVG could not be styled by console.css or read by the tests as figures."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial
from typing import TypeVar

from fastapi import APIRouter, Request
from fastapi.responses import Response
from sqlalchemy.exc import SQLAlchemyError

from api import support
from api.console.routes import CurrentAgent, context_of, duration, page, to_sign_in
from api.dispatch import Context
from models import support as figures
from models.db import Session
from models.support import BANDS, FailingEndpoint, MailCounts, StuckGroup
from models.types import CARRIER_NAMES, utcnow

log = logging.getLogger("lineup.console")

HOURS = 48
ERROR_GROUPS = 12  # error texts listed; the stuck page has every line
ENDPOINTS_SHOWN = 20
WIDE, NARROW, HEIGHT = 1200, 600, 160  # the drawing's own units (a whole row, half a row); scaled to its box
LEFT, BOTTOM, TOP = 36, 22, 8  # room for the value axis, the hour labels, the top value

T = TypeVar("T")


@dataclass(frozen=True)
class CarrierTrouble:
    """One carrier's refusals and outages per hour, aligned with Overview.hours."""

    carrier: str
    refused: list[int]
    outages: list[int]


@dataclass
class Overview:
    """What the page shows; a panel left None could not be read (its name is in `unread`)."""

    now: datetime
    hours: list[datetime]  # the start of each hour, oldest first
    activations: list[int] | None = None
    stuck: list[StuckGroup] | None = None
    ports: dict[str, list[int]] | None = None  # pending ports per carrier: the count in each age band (BANDS)
    carriers: list[CarrierTrouble] | None = None
    endpoints: list[FailingEndpoint] | None = None
    mail: MailCounts | None = None
    unread: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    kind: str  # the CSS class that colours it
    label: str  # what it counts, as its tooltip


@dataclass(frozen=True)
class Tick:
    x: float
    text: str


@dataclass(frozen=True)
class Chart:
    """One SVG chart and the same figures as a table (for screen readers, and for anyone who wants numbers)."""

    key: str  # unique on the page: the SVG's title and description ids
    title: str
    summary: str  # the figures in one sentence: the SVG's description
    bars: list[Bar]
    ticks: list[Tick]
    top: int  # the value axis' top label
    columns: list[str]
    rows: list[list[str]]
    legend: list[tuple[str, str]]  # (CSS class, name)
    width: int
    height: int = HEIGHT


router = APIRouter(prefix="/console", include_in_schema=False)


@router.get("")
async def overview(request: Request, signed: CurrentAgent) -> Response:
    if signed.who is None or signed.token is None:
        return to_sign_in(request, signed)
    view = await overview_of(ctx=context_of(request, signed.who, "console_overview"))
    age = partial(duration, now=view.now)
    return page(request, signed, "overview.html", "overview", "Overview", view=view, charts=drawn(view), age=age)


async def overview_of(*, ctx: Context) -> Overview:
    """The vendor's overview; every figure is the signed-in agent's vendor's only."""
    now = utcnow()
    view = Overview(now=now, hours=hours_ending(now))
    vendor, since, keys = ctx.caller.vendor_id, view.hours[0], [bucket(hour) for hour in view.hours]
    known = {code: code for code in CARRIER_NAMES} | dict(ctx.settings.systems.carrier_aliases)
    waiting = support.waiting(ctx.settings)

    async def activations(session: Session) -> list[int]:
        counted = await figures.activations_per_hour(session, vendor_id=vendor, since=since)
        return [counted.get(key, 0) for key in keys]

    async def ports(session: Session) -> dict[str, list[int]]:
        counted = await figures.ports_pending(session, now, vendor_id=vendor, carriers=known)
        carriers = sorted({carrier for _, carrier in counted})
        return {carrier: [counted.get((band, carrier), 0) for band in BANDS] for carrier in carriers}

    async def carriers(session: Session) -> list[CarrierTrouble]:
        counted = await figures.carrier_trouble_per_hour(session, vendor_id=vendor, since=since, carriers=known)
        return [
            CarrierTrouble(
                name,
                [counted.get((key, name, "refused"), 0) for key in keys],
                [counted.get((key, name, "outage"), 0) for key in keys],
            )
            for name in sorted({carrier for _, carrier, _ in counted})
        ]

    await ctx.uow.commit_before_wait()  # each panel in its own transaction: one that fails leaves the others readable
    view.activations = await _panel(ctx, view, "Lines activated", activations)
    stuck = partial(figures.stuck_by_error, waiting=waiting, vendor_id=vendor, groups=ERROR_GROUPS)
    view.stuck = await _panel(ctx, view, "Lines stuck now", stuck)
    view.ports = await _panel(ctx, view, "Ports pending", ports)
    view.carriers = await _panel(ctx, view, "Carrier refusals and outages", carriers)
    failing = partial(figures.failing_endpoints, vendor_id=vendor, limit=ENDPOINTS_SHOWN)
    view.endpoints = await _panel(ctx, view, "Webhook endpoints failing", failing)
    mail = partial(figures.mail_undelivered, vendor_id=vendor, since=since)
    view.mail = await _panel(ctx, view, "Mail undelivered", mail)
    return view


def drawn(view: Overview) -> dict[str, Chart]:
    """The page's charts, by panel; a panel that could not be read has none."""
    found: dict[str, Chart] = {}
    if view.activations is not None:
        series = [("activated", "lines activated", view.activations)]
        found["activations"] = hourly("activations", "Lines activated", view.hours, series)
    if view.stuck is not None:
        groups = [(group.error or "(no error recorded)", group.lines) for group in view.stuck]
        found["stuck"] = ranked("stuck", "Lines stuck now, by error", groups)
    if view.ports is not None:
        stacks = sorted(view.ports.items())
        found["ports"] = stacked("ports", "Ports pending, by age", BANDS, stacks)
    for trouble in view.carriers or []:
        series = [("refused", "refusals", trouble.refused), ("outage", "outages", trouble.outages)]
        title = f"Carrier {trouble.carrier}: refusals and outages"
        found[f"carrier-{trouble.carrier}"] = hourly(f"carrier-{trouble.carrier}", title, view.hours, series)
    return found


def hours_ending(now: datetime) -> list[datetime]:
    """The last HOURS hours, this one included, each as the moment it began (UTC)."""
    this_hour = now.replace(minute=0, second=0, microsecond=0)
    return [this_hour - timedelta(hours=back) for back in range(HOURS - 1, -1, -1)]


def bucket(hour: datetime) -> str:
    """An hour as the overview's queries bucket it (models.support.hour_of)."""
    return hour.strftime("%Y-%m-%d %H")


async def _panel(ctx: Context, view: Overview, name: str, read: Callable[[Session], Awaitable[T]]) -> T | None:
    """One panel's query, in a transaction that only reads; a database error leaves the panel out and names it,
    instead of failing the page."""
    try:
        async with ctx.resources.db.transaction(write=False) as session:
            return await read(session)
    except SQLAlchemyError as error:
        log.warning("overview panel unreadable", extra={"fields": {"panel": name, "error": type(error).__name__}})
        view.unread.append(name)
        return None


def hourly(key: str, title: str, hours: Sequence[datetime], series: Sequence[tuple[str, str, Sequence[int]]]) -> Chart:
    """Stacked bars per hour: `series` is (CSS class, name, a count per hour) bottom up."""
    step = (WIDE - LEFT) / max(1, len(hours))
    columns = [(LEFT + i * step + 1, max(1.0, step - 2), f"{hour:%d %b %H}:00 UTC") for i, hour in enumerate(hours)]
    bars, top = _stacked_bars(columns, series)
    ticks = [
        Tick(LEFT + i * step, f"{hour:%d %b}" if hour.hour == 0 else f"{hour:%H}:00")
        for i, hour in enumerate(hours)
        if hour.hour % 6 == 0
    ]
    names = [name for _, name, _ in series]
    rows = [[f"{hour:%Y-%m-%d %H}:00", *(str(values[i]) for _, _, values in series)] for i, hour in enumerate(hours)]
    sums = ", ".join(f"{sum(values)} {name}" for _, name, values in series)
    summary = f"{title}, per hour over the last {len(hours)} hours (UTC): {sums} in all."
    legend = [(kind, name) for kind, name, _ in series] if len(series) > 1 else []
    return Chart(key, title, summary, bars, ticks, top, ["hour (UTC)", *names], rows, legend, WIDE)


def stacked(key: str, title: str, groups: Sequence[str], stacks: Sequence[tuple[str, Sequence[int]]]) -> Chart:
    """Stacked bars per group (e.g. age bands), one colour per stack (e.g. carrier), with a legend."""
    step = (NARROW - LEFT) / max(1, len(groups))
    series = [(f"c{n % 7}", name, values) for n, (name, values) in enumerate(stacks)]
    bars, top = _stacked_bars(
        [(LEFT + i * step + step * 0.2, step * 0.6, group) for i, group in enumerate(groups)], series
    )
    ticks = [Tick(LEFT + i * step + step * 0.2, group) for i, group in enumerate(groups)]
    totals = [sum(values[i] for _, values in stacks) for i in range(len(groups))]
    rows = [[name, *(str(v) for v in values), str(sum(values))] for name, values in stacks]
    rows.append(["all", *(str(total) for total in totals), str(sum(totals))])
    parts = ", ".join(f"{total} {group}" for group, total in zip(groups, totals, strict=True))
    summary = f"{title}: {sum(totals)} in all; {parts}."
    legend = [(kind, name) for kind, name, _ in series]
    return Chart(key, title, summary, bars, ticks, top, ["", *groups, "in all"], rows, legend, NARROW)


def ranked(key: str, title: str, items: Sequence[tuple[str, int]]) -> Chart:
    """Horizontal bars, largest first (e.g. stuck lines by error); the labels are the table's, not drawn."""
    top = _scale([value for _, value in items])
    row_height = 18
    height = max(1, len(items)) * row_height + 4
    bars = [
        Bar(0, i * row_height + 2, max(1.0, NARROW * value / top), row_height - 4, "bar", f"{name}: {value}")
        for i, (name, value) in enumerate(items)
    ]
    rows = [[name, str(value)] for name, value in items]
    summary = f"{title}: {sum(value for _, value in items)} in {len(items)} groups."
    return Chart(key, title, summary, bars, [], top, ["", "lines"], rows, [], NARROW, height)


def _stacked_bars(
    columns: Sequence[tuple[float, float, str]], series: Sequence[tuple[str, str, Sequence[int]]]
) -> tuple[list[Bar], int]:
    """The bars of each column (x, width, what its tooltip names it), one per series (CSS class, name, a count
    per column) that counts anything there, stacked bottom up; and the value axis' top."""
    top = _scale([sum(values[i] for _, _, values in series) for i in range(len(columns))])
    bars: list[Bar] = []
    for i, (x, width, where) in enumerate(columns):
        base = float(HEIGHT - BOTTOM)
        for kind, name, values in series:
            if values[i]:
                height = (HEIGHT - BOTTOM - TOP) * values[i] / top
                base -= height
                bars.append(Bar(x, base, width, height, kind, f"{where}: {values[i]} {name}"))
    return bars, top


def _scale(values: Sequence[int]) -> int:
    """The value axis' top: the largest stack, at least 1 (an empty chart still draws its axis)."""
    return max(1, *values) if values else 1
