"""The create answer's time, overall and by what was going on: within `after` seconds after each kind of kill,
during the carrier outage, and outside all of them (where the goal applies)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from bench.stats import percentile
from soak.channel import Attempt
from soak.load import Event, Run

KILL_KINDS = ("kill-worker", "kill-api", "kill-temporal", "kill-postgres")
OUTSIDE = "outside"
GOAL_P99_SECONDS = 5.0


@dataclass(frozen=True)
class Window:
    kind: str
    start: float  # epoch seconds
    end: float


@dataclass(frozen=True)
class Latency:
    label: str
    answered: int
    unanswered: int  # create calls that got no answer at all (a process killed under them)
    p50: float | None
    p99: float | None
    max: float | None


def windows(events: list[Event], after: float, run_end: float) -> list[Window]:
    """Each kill's `after` seconds; the outage from its start to `after` seconds past its end."""
    found = [Window(e.kind, e.at, e.at + after) for e in events if e.kind in KILL_KINDS]
    starts = [e.at for e in events if e.kind == "outage-start"]
    ends = [e.at for e in events if e.kind == "outage-end"]
    for start in starts:
        end = min((at for at in ends if at >= start), default=run_end)
        found.append(Window("outage", start, end + after))
    return found


def touches(attempt: Attempt, window: Window) -> bool:
    """The call overlapped the window (a call begun before a kill and slowed by it counts too)."""
    end = attempt.started + (attempt.seconds or 0.0)
    return attempt.started < window.end and end >= window.start


def latency(label: str, attempts: list[Attempt]) -> Latency:
    times = [a.seconds for a in attempts if a.seconds is not None]
    return Latency(
        label,
        len(times),
        len(attempts) - len(times),
        percentile(times, 50),
        percentile(times, 99),
        max(times, default=None),
    )


def latencies(run: Run, after: float) -> list[Latency]:
    attempts = [attempt for order in run.orders for attempt in order.attempts]
    spans = windows(run.events, after, run.ended)
    rows = [latency("all create calls", attempts)]
    for kind in (*KILL_KINDS, "outage"):
        near = [a for a in attempts if any(w.kind == kind and touches(a, w) for w in spans)]
        label = f"≤{after:.0f} s after {kind}" if kind != "outage" else f"carrier outage (+{after:.0f} s)"
        rows.append(latency(label, near))
    rows.append(latency(OUTSIDE, [a for a in attempts if not any(touches(a, w) for w in spans)]))
    return rows


def taken_answers(run: Run, created: Mapping[str, float], after: float) -> dict[str, int]:
    """The answers given to creates Lineup had already taken (a line of the order written before the answer came)
    while a kill or the outage went on, counted by answer (`created`: enrollment id → when its row was written,
    epoch seconds). Each should be a success (its lines "in progress" at worst), never "unavailable"."""
    spans = windows(run.events, after, run.ended)
    found: Counter[str] = Counter()
    for order in run.orders:
        written = [created[eid] for eid in order.enrollment_ids if eid in created]
        for attempt in order.attempts if written else []:
            if attempt.seconds is None or attempt.started + attempt.seconds < min(written):
                continue  # no answer at all, or answered before the order was taken
            if any(touches(attempt, window) for window in spans):
                found[attempt.said[:120]] += 1
    return dict(found.most_common())
