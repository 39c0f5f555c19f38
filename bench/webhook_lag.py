"""Webhook delivery lag, as a channel's receiver sees it (issue 35, finding 9): a DEMO endpoint registered to the
sandbox's receiver (`POST /sandbox/webhooks`, which records each delivery's arrival), then each event's time from
its `created` to its first arrival there. `make bench` (T9) measures it at the soak's load; `make soak` reports it."""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import asyncpg
import httpx
from sqlalchemy import text

from bench.client import ApiError, Channel, describe
from bench.context import Context
from bench.stack import REPO, lineup_binary
from bench.stack_db import stack_database
from bench.stats import Figure, Goal, percentile

RECEIVER = "/sandbox/webhooks"
# Deliveries queued so far: with the receiver the only endpoint, one per event since it was registered.
QUEUED = "SELECT count(*) FROM webhook_delivery"
# Where the lag goes (PostgreSQL): queued → first attempt begun (the dispatcher, Temporal and the worker), and
# first attempt → delivered (the POST and its retries), p50 and p99 in seconds.
PHASES = """
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM first_attempt_at - created_at)),
       percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM first_attempt_at - created_at)),
       percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM delivered_at - first_attempt_at)),
       percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM delivered_at - first_attempt_at))
FROM webhook_delivery WHERE status = 'DELIVERED'
"""


@dataclass(frozen=True)
class Lag:
    """Seconds from each event's creation to its first arrival, and the deliveries that came again (at least
    once: a retried attempt whose answer was lost)."""

    seconds: list[float]
    repeated: int = 0

    def summary(self) -> dict[str, float | int | None]:
        return {
            "events": len(self.seconds),
            "p50_s": percentile(self.seconds, 50),
            "p99_s": percentile(self.seconds, 99),
            "max_s": max(self.seconds, default=None),
            "repeated": self.repeated,
        }


def register_receiver(env: dict[str, str], sandbox_url: str, log: Path) -> None:
    """`lineup webhook add` of a DEMO endpoint at the sandbox's receiver (http to loopback: the dev profile). Its
    output, which holds the signing secret, goes to the log only."""
    with open(log, "ab") as output:
        done = subprocess.run(
            [lineup_binary(), "webhook", "add", "--vendor-id", "DEMO", "--url", f"{sandbox_url}{RECEIVER}"],
            env=env,
            cwd=REPO,
            stdout=output,
            stderr=output,
            check=False,
        )
    if done.returncode != 0:
        raise RuntimeError(f"`lineup webhook add` exited with {done.returncode}; see {log}")


async def received(sandbox_url: str) -> list[dict[str, str]]:
    """Every delivery the sandbox's receiver recorded, oldest first."""
    async with httpx.AsyncClient(timeout=60) as http:
        found: list[dict[str, str]] = (await http.get(f"{sandbox_url}{RECEIVER}")).raise_for_status().json()
    return found


def lag_of(deliveries: list[dict[str, str]]) -> Lag:
    """The lag of each event to its first arrival."""
    first: dict[str, float] = {}
    repeated = 0
    for delivery in deliveries:
        event = json.loads(delivery["body"])
        created = datetime.fromisoformat(event["created"]).timestamp()
        arrived = datetime.fromisoformat(delivery["received_at"]).timestamp()
        if event["id"] in first:
            repeated += 1
            continue
        first[event["id"]] = max(0.0, arrived - created)
    return Lag(list(first.values()), repeated)


async def drained(sandbox_url: str, expected: int, *, within: float) -> Lag:
    """The lag once `expected` events have arrived, or after `within` seconds with what arrived (those still on
    their way are missing from it: the caller compares the count)."""
    deadline = time.monotonic() + within
    while True:
        lag = lag_of(await received(sandbox_url))
        if len(lag.seconds) >= expected or time.monotonic() > deadline:
            return lag
        await asyncio.sleep(1.0)


# T9: the soak's load (an order a second offered to 8 channels, 1 or 2 new lines each, several events a line) with
# a DEMO endpoint at the sandbox's receiver; the goal is issue 35's.
T9_SECONDS = {True: 60.0, False: 180.0}  # --quick, full
T9_CHANNELS, T9_RATE = 8, 1.0
T9_DRAIN_SECONDS = 300.0  # after the load, how long the deliveries still on their way are waited for
T9_GOAL_MS = 30_000.0


async def t9_webhook_lag(ctx: Context) -> list[Figure]:
    stack = ctx.stack
    await asyncio.to_thread(register_receiver, stack.env, stack.sandbox_url, stack.data_dir / "webhook-add.log")
    orders = await _soak_load(ctx, T9_SECONDS[ctx.options.quick])
    async with stack_database(stack) as engine, engine.connect() as connection:
        expected = int(await connection.scalar(text(QUEUED)) or 0)
        lag = await drained(stack.sandbox_url, expected, within=T9_DRAIN_SECONDS)
        phases = (await connection.execute(text(PHASES))).one()
    names = (
        "to_first_attempt_p50_s",
        "to_first_attempt_p99_s",
        "attempt_to_delivered_p50_s",
        "attempt_to_delivered_p99_s",
    )
    facts = lag.summary()
    p50, p99 = facts["p50_s"], facts["p99_s"]
    missing = expected - len(lag.seconds)
    spread = ", ".join(f"{name} {facts[f'{name}_s'] or 0:.1f} s" for name in ("p50", "max"))
    label = f"{ctx.db}: webhook lag p99 ({spread}), event → receipt, {T9_RATE:g} order/s, {T9_CHANNELS} channels"
    figure = Figure(
        ctx.key("T9", "webhook_lag"),
        "T9",
        label,
        "ms",
        value=None if p99 is None else p99 * 1000,
        p50_ms=None if p50 is None else p50 * 1000,
        p99_ms=None if p99 is None else p99 * 1000,
        count=len(lag.seconds),
        errors=orders.failed + max(0, missing),
        goal=Goal("value", "<=", T9_GOAL_MS),
        note=orders.last_error or (f"{missing} of {expected} deliveries not received" if missing > 0 else ""),
        extra={
            **facts,
            **{name: None if value is None else float(value) for name, value in zip(names, phases, strict=True)},
            "expected": expected,
            "orders": orders.offered,
            "orders_failed": orders.failed,
        },
    )
    return [figure]


@dataclass
class Orders:
    offered: int = 0
    failed: int = 0
    last_error: str = ""


async def _soak_load(ctx: Context, seconds: float) -> Orders:
    """An order every 1/rate seconds to a free channel (none free: not offered), as the soak drives its load."""
    rng, orders = random.Random(35), Orders()
    tickets: asyncio.Queue[int | None] = asyncio.Queue(maxsize=T9_CHANNELS)

    async def serve(channel: Channel) -> None:
        while (lines := await tickets.get()) is not None:
            try:
                created = await channel.create([await channel.enrollment_id() for _ in range(lines)])
                if not created.ok:
                    raise ApiError(f"create answered {describe(created.answer)}")
            except Exception as exc:  # noqa: BLE001 — counted and reported in the row
                orders.failed, orders.last_error = orders.failed + 1, f"{type(exc).__name__}: {exc}"[:300]

    channels = [asyncio.create_task(serve(Channel(ctx.http))) for _ in range(T9_CHANNELS)]
    began, ticks = time.monotonic(), 0
    while time.monotonic() < began + seconds:
        ticks += 1
        if not tickets.full():
            orders.offered += 1
            tickets.put_nowait(rng.choice((1, 2)))
        await asyncio.sleep(max(0.0, began + ticks / T9_RATE - time.monotonic()))
    for _ in channels:
        await tickets.put(None)
    await asyncio.gather(*channels)
    return orders


async def soak_lag(database_url: str, sandbox_url: str, *, within: float) -> dict[str, float | int | None]:
    """`make soak`'s figures: the lag of every event its receiver got, once the deliveries queued (read on the
    stack's PostgreSQL) have arrived or `within` seconds have passed, and how many had not."""
    connection = await asyncpg.connect(database_url, timeout=10)
    try:
        expected = int(await connection.fetchval(QUEUED) or 0)
    finally:
        await connection.close()
    lag = await drained(sandbox_url, expected, within=within)
    return {**lag.summary(), "expected": expected, "not_received": max(0, expected - len(lag.seconds))}
