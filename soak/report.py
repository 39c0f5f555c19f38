"""The soak's table, its goals, and everything behind them as JSON in the data dir."""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import asdict
from pathlib import Path
from typing import Any

from soak.counts import Counts
from soak.figures import GOAL_P99_SECONDS, OUTSIDE, Latency
from soak.keeper import Exit
from soak.load import Run
from soak.options import KILL_ORDER, Options


def goals(counts: Counts, rows: list[Latency]) -> dict[str, bool]:
    outside = next(row for row in rows if row.label == OUTSIDE)
    return {
        "0 lost": counts.lost_total == 0,
        "0 duplicated": counts.duplicated_total == 0,
        "every stuck line healed by itself": not counts.stuck["not_healed"],
        "0 HTTP 500s": not counts.server_errors,
        f"p99 < {GOAL_P99_SECONDS:g} s outside the windows": outside.p99 is not None and outside.p99 < GOAL_P99_SECONDS,
    }


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _listed(found: dict[str, Any]) -> str:
    return ", ".join(f"{name.replace('_', ' ')} {value}" for name, value in found.items())


def table(
    options: Options,
    run: Run,
    counts: Counts,
    rows: list[Latency],
    exits: list[Exit],
    load: Any,
    phases: dict[str, float],
    errors: dict[str, int],
    *,
    taken: dict[str, int] | None = None,
    webhooks: dict[str, float | int | None] | None = None,
) -> str:
    met = goals(counts, rows)
    taken = taken or {}
    return "\n".join(
        [
            *_header(options, run, load, phases),
            "",
            *_counted(counts, run, exits),
            # Creates answered during a kill or the outage after their order was taken (issue 35): never "unavailable".
            f"taken       {sum(taken.values())} creates answered in a fault's window after their order was taken",
            *(f"            {times} × {said}" for said, times in taken.items()),
            *_webhooks(webhooks or {}),
            f"http 5xx    {len(counts.server_errors)} answers with HTTP 500 or more (soak.json lists them)",
            *(f"            {said[:110]}" for said in counts.server_errors[:5]),
            f"errors      {sum(errors.values())} logged at ERROR by the API and the workers (soak.json lists them)",
            *(f"            {times} × {what}" for what, times in list(errors.items())[:5]),
            "",
            *_latencies(rows),
            "",
            "goals       " + "; ".join(f"{name}: {'met' if ok else 'NOT MET'}" for name, ok in met.items()),
        ]
    )


def _header(options: Options, run: Run, load: Any, phases: dict[str, float]) -> list[str]:
    outage = options.outage()
    return [
        f"Lineup soak: {(run.ended - run.started) / 60:.1f} min of load, {options.channels} channels, "
        f"{options.rate:g} order/s offered, a SIGKILL every {options.kill_every:g} s "
        f"({', '.join(sorted({kind for _, kind in options.kill_times()}, key=KILL_ORDER.index)) or 'none'}), "
        f"a carrier provisioning outage of {outage[1] - outage[0] if outage else 0:.0f} s",
        f"machine: {os.cpu_count()} cores; load average (1, 5, 15 min) {load['start']} at the start, "
        f"{load['end']} at the end; seconds: " + ", ".join(f"{name} {value:.0f}" for name, value in phases.items()),
    ]


def _counted(counts: Counts, run: Run, exits: list[Exit]) -> list[str]:
    stuck = counts.stuck
    restarts = Counter(exit.service for exit in exits)
    leftovers = sum(exit.leftovers for exit in exits)
    return [
        f"orders      {_listed(counts.orders)}",
        f"lines       {_listed(counts.lines)}",
        f"lost        {counts.lost_total}  ({_listed({k: len(v) for k, v in counts.lost.items()})})",
        f"duplicated  {counts.duplicated_total}  ({_listed({k: len(v) for k, v in counts.duplicated.items()})})",
        f"stuck       ever {len(stuck['ever'])}, healed by themselves {len(stuck['healed'])}, "
        f"not healed {len(stuck['not_healed'])} (the soak never asks support to retry)",
        f"unanswered  creates never accepted: {_listed(counts.unanswered)}",
        f"faults      {_listed(dict(Counter(event.kind for event in run.events)))}",
        f"restarts    {_listed(dict(restarts))}; processes left in a dead one's group a second later: {leftovers}",
    ]


def _webhooks(lag: dict[str, float | int | None]) -> list[str]:
    """The lag from each event to its arrival at the soak's receiver (a DEMO endpoint on the sandbox)."""
    if not lag:
        return []
    seconds = ", ".join(f"{name} {_seconds(lag[f'{name}_s'])}" for name in ("p50", "p99", "max"))
    return [
        f"webhooks    {lag['events']} events received, lag {seconds} s (event to receipt); "
        f"{lag['not_received']} of {lag['expected']} not received, {lag['repeated']} received again"
    ]


def _latencies(rows: list[Latency]) -> list[str]:
    lines = [f"{'create answer (s)':34}{'answered':>9}{'no answer':>10}{'p50':>8}{'p99':>8}{'max':>8}"]
    for row in rows:
        times = "".join(f"{_seconds(value):>8}" for value in (row.p50, row.p99, row.max))
        lines.append(f"{row.label:34}{row.answered:>9}{row.unanswered:>10}{times}")
    return lines


def write_json(path: Path, **parts: Any) -> None:
    def plain(value: Any) -> Any:
        if hasattr(value, "__dataclass_fields__"):
            return asdict(value)
        if isinstance(value, set):
            return sorted(value)
        if isinstance(value, Path):
            return str(value)
        raise TypeError(f"not JSON: {type(value).__name__}")

    path.write_text(json.dumps(parts, default=plain, indent=1))
