"""Samples and figures: rounds timed one after another, rates over a window, medians and p99s."""

from __future__ import annotations

import asyncio
import math
import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

Unit = Literal["ms", "/s", "count"]


def percentile(samples: list[float], q: float) -> float | None:
    """Nearest-rank percentile: with few samples p99 is the slowest one, never an interpolation."""
    if not samples:
        return None
    ordered = sorted(samples)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


@dataclass(frozen=True)
class Goal:
    """A target from issue 11 on the ratio to the baseline, or on the value itself."""

    on: Literal["ratio", "value"]
    op: Literal[">=", "<=", "<", "=="]
    limit: float

    def met(self, value: float | None, ratio: float | None) -> bool | None:
        measured = ratio if self.on == "ratio" else value
        if measured is None:
            return None
        return {
            ">=": measured >= self.limit,
            "<=": measured <= self.limit,
            "<": measured < self.limit,
            "==": measured == self.limit,
        }[self.op]

    def __str__(self) -> str:
        symbol = {">=": "≥", "<=": "≤", "<": "<", "==": "="}[self.op]
        return f"{'ratio ' if self.on == 'ratio' else ''}{symbol} {self.limit:g}"


@dataclass
class Figure:
    """One row of the report: a measured value (median ms, or a rate), its latency spread, and its target."""

    key: str
    target: str  # T1…T7
    label: str
    unit: Unit
    per: str = ""  # what a rate counts: "req", "lines", "workflows"
    value: float | None = None
    p50_ms: float | None = None
    p99_ms: float | None = None
    count: int = 0
    errors: int = 0
    against: str | None = None  # key of the baseline figure measured in the same run
    goal: Goal | None = None
    note: str = ""
    extra: dict[str, object] = field(default_factory=dict)
    other_cores: float | None = None  # CPU other processes took during the scenario (see bench.machine)


def latency_figure(key: str, target: str, label: str, rounds: Rounds) -> Figure:
    samples = rounds.samples
    return Figure(
        key,
        target,
        label,
        "ms",
        value=statistics.median(samples) if samples else None,
        p50_ms=percentile(samples, 50),
        p99_ms=percentile(samples, 99),
        count=len(samples),
        errors=rounds.errors,
        note=rounds.last_error,
    )


@dataclass
class Rounds:
    """Sequential samples in ms, and the failures among them (with the last one's reason)."""

    samples: list[float] = field(default_factory=list)
    errors: int = 0
    last_error: str = ""


async def timed_rounds(call: Callable[[], Awaitable[float | None]], rounds: int, warmup: int) -> Rounds:
    """Runs `call` warmup + rounds times in sequence; `call` returns its own ms, or None for a failure."""
    result = Rounds()
    for index in range(warmup + rounds):
        try:
            elapsed = await call()
        except Exception as exc:  # noqa: BLE001 — a failed round is counted and reported, not fatal
            elapsed, result.last_error = None, f"{type(exc).__name__}: {exc}"
        if index < warmup:
            continue
        if elapsed is None:
            result.errors += 1
        else:
            result.samples.append(elapsed)
    return result


async def timed(call: Callable[[], Awaitable[bool]]) -> float | None:
    """The ms `call` took, or None when it reports failure."""
    started = time.perf_counter()
    ok = await call()
    return (time.perf_counter() - started) * 1000 if ok else None


@dataclass
class Window:
    """Completions inside a measuring window, after a warm-up, from several concurrent loops."""

    seconds: float
    completed: int = 0
    uncounted: int = 0  # answered without error, but not what the measurement counts (e.g. no MDN yet)
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    last_error: str = ""

    @property
    def rate(self) -> float:
        return self.completed / self.seconds

    def record(self, counted: bool | None, began: float, ended: float) -> None:
        """`counted` None is an error; False an answer that does not count."""
        self.completed += counted is True
        self.uncounted += counted is False
        self.errors += counted is None
        if counted:
            self.latencies.append((ended - began) * 1000)


async def rate_window(loops: list[Callable[[], Awaitable[bool]]], warmup: float, seconds: float) -> Window:
    """Each of `loops` runs back to back; the runs finishing inside [warmup, warmup + seconds] count."""
    window = Window(seconds)
    started = time.monotonic()
    opens, closes = started + warmup, started + warmup + seconds

    async def loop(one: Callable[[], Awaitable[bool]]) -> None:
        while (began := time.monotonic()) < closes:
            counted: bool | None
            try:
                counted = await one()
            except Exception as exc:  # noqa: BLE001 — counted as an error of the measurement
                counted, window.last_error = None, f"{type(exc).__name__}: {exc}"
            if opens <= (ended := time.monotonic()) <= closes:
                window.record(counted, began, ended)

    await asyncio.gather(*(loop(one) for one in loops))
    return window


def rate_figure(key: str, target: str, label: str, per: str, window: Window) -> Figure:
    return Figure(
        key,
        target,
        label,
        "/s",
        per,
        value=window.rate,
        p50_ms=percentile(window.latencies, 50),
        p99_ms=percentile(window.latencies, 99),
        count=window.completed,
        errors=window.errors,
        note=window.last_error,
        extra={"uncounted": window.uncounted, "window_seconds": window.seconds},
    )
