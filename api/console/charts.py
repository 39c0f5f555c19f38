"""The overview's charts: the geometry of each (bars, axis ticks) and its figures as a table, computed here and
drawn by the template as inline SVG (overview.html, autoescaped like every page).

Plain SVG, not a plotting library: every chart is bars, a few dozen rectangles, and the page must load nothing
from another host, run no script and carry no inline style (its Content-Security-Policy allows none). matplotlib
or pygal would add a dependency (numpy and fonts, or their own scripts and inline styles) to the API for what a
hundred lines draw, and their SVG could not be styled by console.css or read by the tests as figures."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

WIDE, NARROW, HEIGHT = 1200, 600, 160  # the drawing's own units (a whole row, half a row); scaled to its box
LEFT, BOTTOM, TOP = 36, 22, 8  # room for the value axis, the hour labels, the top value


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


def _scale(values: Sequence[int]) -> int:
    """The value axis' top: the largest stack, at least 1 (an empty chart still draws its axis)."""
    return max(1, *values) if values else 1


def hourly(key: str, title: str, hours: Sequence[datetime], series: Sequence[tuple[str, str, Sequence[int]]]) -> Chart:
    """Stacked bars per hour: `series` is (CSS class, name, a count per hour) bottom up."""
    totals = [sum(values[i] for _, _, values in series) for i in range(len(hours))]
    top = _scale(totals)
    step = (WIDE - LEFT) / max(1, len(hours))
    plot = HEIGHT - BOTTOM - TOP
    bars: list[Bar] = []
    for i, hour in enumerate(hours):
        base = float(HEIGHT - BOTTOM)
        for kind, name, values in series:
            if values[i]:
                height = plot * values[i] / top
                base -= height
                label = f"{hour:%d %b %H}:00 UTC: {values[i]} {name}"
                bars.append(Bar(LEFT + i * step + 1, base, max(1.0, step - 2), height, kind, label))
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
    totals = [sum(values[i] for _, values in stacks) for i in range(len(groups))]
    top = _scale(totals)
    step = (NARROW - LEFT) / max(1, len(groups))
    plot = HEIGHT - BOTTOM - TOP
    bars: list[Bar] = []
    for i, group in enumerate(groups):
        base = float(HEIGHT - BOTTOM)
        for n, (name, values) in enumerate(stacks):
            if values[i]:
                height = plot * values[i] / top
                base -= height
                bars.append(
                    Bar(
                        LEFT + i * step + step * 0.2,
                        base,
                        step * 0.6,
                        height,
                        f"c{n % 7}",
                        f"{group}: {values[i]} {name}",
                    )
                )
    ticks = [Tick(LEFT + i * step + step * 0.2, group) for i, group in enumerate(groups)]
    rows = [[name, *(str(v) for v in values), str(sum(values))] for name, values in stacks]
    rows.append(["all", *(str(total) for total in totals), str(sum(totals))])
    parts = ", ".join(f"{total} {group}" for group, total in zip(groups, totals, strict=True))
    summary = f"{title}: {sum(totals)} in all; {parts}."
    legend = [(f"c{n % 7}", name) for n, (name, _) in enumerate(stacks)]
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


def duration(since: datetime, *, now: datetime) -> str:
    """How long ago, as a person reads it: 45 s, 12 min, 3 h, 2 d."""
    seconds = max(0, int((now - since).total_seconds()))
    for unit, size in (("d", 86_400), ("h", 3_600), ("min", 60)):
        if seconds >= size:
            return f"{seconds // size} {unit}"
    return f"{seconds} s"
