"""One soak run from start to verdict: the stack up, the load with its faults, the wait for every line to settle,
the counting, the stack down (its database dropped, its logs kept)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from dataclasses import dataclass
from pathlib import Path

from bench.webhook_lag import register_receiver, soak_lag
from soak.counts import Counts, count
from soak.evidence import Evidence, gather, wait_settled
from soak.figures import Latency, latencies, taken_answers
from soak.keeper import Exit
from soak.load import Run, drive, faults, keep_running, watch_stuck
from soak.logscan import logged_errors
from soak.options import Options
from soak.report import goals, table, write_json
from soak.stack import SoakStack, start, stop

WEBHOOK_DRAIN_SECONDS = 120.0  # after every line settled, how long deliveries still on their way are waited for


@dataclass
class Result:
    run: Run
    counts: Counts
    latencies: list[Latency]
    exits: list[Exit]
    phases: dict[str, float]  # seconds: start, load, drain, settle, stop
    goals: dict[str, bool]
    table: str
    json_path: Path

    @property
    def passed(self) -> bool:
        return all(self.goals.values())


def load_average() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


async def _cancel(*tasks: asyncio.Task[None]) -> None:
    for task in tasks:
        task.cancel()
    for task in tasks:
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def _observe(stack: SoakStack, options: Options, run: Run, phases: dict[str, float]) -> Evidence:
    """The load with its faults, then the wait for everything to settle; the restart loops turn throughout."""
    keeper = asyncio.create_task(keep_running(stack))
    stuck = asyncio.create_task(watch_stuck(stack, run))
    chaos = asyncio.create_task(faults(stack, options, run))
    try:
        await drive(stack, options, run)
        phases["load"], phases["drain"] = run.ended - run.started, time.time() - run.ended
        await _cancel(chaos)
        phases["settle"] = await wait_settled(stack, run, options.settle_minutes * 60)
        return await gather(stack)
    finally:
        await _cancel(chaos, stuck, keeper)


async def soak(options: Options) -> Result:
    load, began = {"start": load_average()}, time.time()
    stack = await start(options)
    run, phases = Run(), {"start": time.time() - began}
    try:
        # A vendor's endpoint at the sandbox's receiver: the report gives each event's lag to it (issue 35).
        await asyncio.to_thread(register_receiver, stack.env, stack.sandbox_url, stack.data_dir / "logs" / "setup.log")
        evidence = await _observe(stack, options, run, phases)
        webhooks = await soak_lag(stack.database_url, stack.sandbox_url, within=WEBHOOK_DRAIN_SECONDS)
    finally:
        load["end"] = load_average()
        stopping = time.time()
        await stop(stack)
        phases["stop"] = time.time() - stopping
    counts = count(run, evidence)
    rows = latencies(run, options.after_kill_seconds)
    created = {row["enrollment_id"]: row["created_at"] for row in evidence.lines if row.get("created_at") is not None}
    taken = taken_answers(run, created, options.after_kill_seconds)
    exits = stack.keeper.exits
    errors = logged_errors(stack.keeper.logs)
    text = table(options, run, counts, rows, exits, load, phases, errors, taken=taken, webhooks=webhooks)
    path = stack.data_dir / "soak.json"
    met = goals(counts, rows)
    write_json(
        path,
        options=options,
        load_average=load,
        goals=met,
        counts=counts,
        latencies=rows,
        phases=phases,
        events=run.events,
        exits=exits,
        logged_errors=errors,
        taken_answers=taken,
        webhook_lag=webhooks,
        orders=run.orders,
        settings=_lineup_settings(stack),
    )
    return Result(run, counts, rows, exits, phases, met, text, path)


def _lineup_settings(stack: SoakStack) -> dict[str, str]:
    return {name: value for name, value in stack.env.items() if name.startswith("LINEUP_")}
