"""The load and the faults over it: orders offered at a steady rate to the channels that are free, a SIGKILL of a
worker, the API master or the Temporal server in turn, a carrier outage; and, all along, the restart loops
turning and the lines seen STUCK noted."""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field

import asyncpg
import httpx

from soak.bodies import PortNumbers
from soak.channel import Channel, Order
from soak.options import Options
from soak.stack import WORKERS, SoakStack

TICK_SECONDS = 0.2
STUCK_POLL_SECONDS = 2.0
DRAIN_SECONDS = 240.0  # orders under way when the load ends may still be retrying a step
STUCK = "SELECT enrollment_id FROM line WHERE status = 'STUCK'"
# The carrier's provisioning down (activations, port-ins and their status), its tax service up: orders are still
# paid and created during the outage, and their lines get stuck, which they must heal from by themselves.
OUTAGE_SCOPE = ["/carrier/activations", "/carrier/ports"]


@dataclass(frozen=True)
class Event:
    """A fault the soak caused: `kind` is kill-worker, kill-api, kill-temporal, kill-postgres, outage-start or
    outage-end."""

    at: float  # epoch seconds
    kind: str
    detail: str


@dataclass
class Run:
    """Everything the load did and saw."""

    started: float = 0.0  # epoch seconds the load began
    ended: float = 0.0
    orders: list[Order] = field(default_factory=list)
    offered: int = 0
    skipped: int = 0  # offered while every channel was busy
    events: list[Event] = field(default_factory=list)
    ever_stuck: set[str] = field(default_factory=set)


async def keep_running(stack: SoakStack) -> None:
    """The restart loops, until cancelled."""
    while True:
        stack.keeper.tick()
        await asyncio.sleep(TICK_SECONDS)


async def watch_stuck(stack: SoakStack, run: Run) -> None:
    """Notes every line seen STUCK (a stuck line waits at least LINEUP_STUCK_RETRY_MINUTES: a poll sees it); a
    connection the database's restart cut is made again at the next poll."""
    connection: asyncpg.Connection | None = None
    try:
        while True:
            try:
                connection = connection or await asyncpg.connect(stack.database_url, timeout=5)
                run.ever_stuck.update(row["enrollment_id"] for row in await connection.fetch(STUCK))
            except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError):
                if connection is not None:
                    connection.terminate()
                connection = None
            await asyncio.sleep(STUCK_POLL_SECONDS)
    finally:
        if connection is not None:
            connection.terminate()


async def _set_carrier(stack: SoakStack, fault_rate: float) -> None:
    faults = {"fault_rate": fault_rate, "scope": OUTAGE_SCOPE if fault_rate else []}
    async with httpx.AsyncClient(base_url=stack.sandbox_url, timeout=10) as http:
        (await http.post("/sandbox/faults", json=faults)).raise_for_status()


async def faults(stack: SoakStack, options: Options, run: Run) -> None:
    """The kills and the outage at their times into the load; the outage always ends, even when cancelled."""
    plan: list[tuple[float, str]] = list(options.kill_times())
    if (outage := options.outage()) is not None:
        plan += [(outage[0], "outage-start"), (outage[1], "outage-end")]
    workers = 0
    try:
        for at, kind in sorted(plan):
            await asyncio.sleep(max(0.0, run.started + at - time.time()))
            if kind.startswith("outage"):
                await _set_carrier(stack, 1.0 if kind == "outage-start" else 0.0)
                run.events.append(Event(time.time(), kind, f"503 for every call to {', '.join(OUTAGE_SCOPE)}"))
                continue
            names = {"worker": WORKERS[workers % len(WORKERS)], "api": "api", "temporal": "temporal"}
            name = names.get(kind, kind)  # "postgres": the soak's own server (never one it was given)
            workers += kind == "worker"
            pid = stack.keeper.kill(name)
            run.events.append(Event(time.time(), f"kill-{kind}", f"SIGKILL {name} (pid {pid})"))
    finally:
        if outage is not None and not any(event.kind == "outage-end" for event in run.events):
            await _set_carrier(stack, 0.0)
            run.events.append(Event(time.time(), "outage-end", "ended with the load"))


def _line_plan(rng: random.Random, ports: PortNumbers, counter: list[int]) -> list[str | None]:
    """1 or 2 lines; every third line of the run ports a number in."""
    plan: list[str | None] = []
    for _ in range(rng.choice((1, 2))):
        counter[0] += 1
        plan.append(ports.next() if counter[0] % 3 == 0 else None)
    return plan


async def drive(stack: SoakStack, options: Options, run: Run) -> None:
    """Offers an order every 1/rate seconds for the run's length to a free channel; then lets the orders under
    way finish (or give up)."""
    rng = random.Random(options.seed)
    ports, counter = PortNumbers(rng), [0]
    tickets: asyncio.Queue[Order | None] = asyncio.Queue(maxsize=options.channels)
    limits = httpx.Limits(max_keepalive_connections=0)  # a connection per call: both API processes take some
    async with httpx.AsyncClient(base_url=stack.api_url, timeout=60, limits=limits) as http:

        async def serve(channel: Channel) -> None:
            while (order := await tickets.get()) is not None:
                order.channel = channel.number
                await channel.run(order, order_plans.pop(order.number))

        order_plans: dict[int, list[str | None]] = {}
        channels = [asyncio.create_task(serve(Channel(n, http))) for n in range(options.channels)]
        run.started = time.time()
        while time.time() < run.started + options.seconds:
            run.offered += 1
            plan = _line_plan(rng, ports, counter)
            order = Order(run.offered, 0, len(plan))
            if tickets.full():
                run.skipped += 1
            else:
                order_plans[order.number] = plan
                run.orders.append(order)
                tickets.put_nowait(order)
            await asyncio.sleep(max(0.0, run.started + run.offered / options.rate - time.time()))
        run.ended = time.time()
        for _ in channels:
            await tickets.put(None)
        await asyncio.wait(channels, timeout=DRAIN_SECONDS)
        for task in channels:
            task.cancel()
