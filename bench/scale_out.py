"""T7: 100 enrollments from 16 concurrent channels; every answer, the `line` table and the carrier's lines
checked for duplicates and losses; the rate set beside the 1 API + 1 worker run. tests/scale runs it too."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from bench import postgres
from bench.client import Channel, Created, describe
from bench.context import Context
from bench.costs import CpuWindow, cpu_figure, footprint_figures
from bench.footprint import footprint
from bench.options import CHANNELS
from bench.postgres import LineCounts
from bench.stack import Stack
from bench.stack_db import stack_database
from bench.stats import Figure, Goal, percentile

SETTLE_SECONDS = 60.0


TRY_AGAIN = "please try again later"  # how an answer asks the channel to send the same request again
RETRY_PAUSE_SECONDS = 1.0


@dataclass
class Enrollments:
    """Every create T7 sent: enrollment ids and answers, and how long the whole batch took."""

    ids: list[str] = field(default_factory=list)
    answers: list[Created] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    retried: list[str] = field(default_factory=list)  # answers that asked to try again, then tried again
    seconds: float = 0.0


def asks_to_try_again(answer: dict[str, Any]) -> bool:
    return any(TRY_AGAIN in str(error) for error in answer.get("errors") or [])


async def enroll(channel: Channel, batch: Enrollments, retries: int = 0) -> None:
    """One 1-line enrollment; sent again, as a channel would, up to `retries` times while the answer asks to
    try again later (a repeated create is idempotent: it must not make a second line)."""
    enrollment_id = await channel.enrollment_id()
    batch.ids.append(enrollment_id)
    created = await channel.create([enrollment_id])
    for _ in range(retries):
        if created.ok or not asks_to_try_again(created.answer):
            break
        batch.retried.append(describe(created.answer))
        await asyncio.sleep(RETRY_PAUSE_SECONDS)
        created = await channel.create([enrollment_id])
    batch.answers.append(created)
    if not created.ok:
        batch.failures.append(describe(created.answer))


async def run_batch(channels: list[Channel], total: int, retries: int = 0) -> Enrollments:
    batch, remaining = Enrollments(), [total]

    async def loop(channel: Channel) -> None:
        while remaining[0] > 0:
            remaining[0] -= 1
            try:
                await enroll(channel, batch, retries)
            except Exception as exc:  # noqa: BLE001 — a failed enrollment is reported with the others
                batch.failures.append(f"{type(exc).__name__}: {exc}"[:300])

    started = time.monotonic()
    await asyncio.gather(*(loop(channel) for channel in channels))
    batch.seconds = time.monotonic() - started
    return batch


async def settled_counts(stack: Stack, batch: Enrollments, total: int) -> tuple[LineCounts, dict[str, Any]]:
    """The lines' counts once every line is ACTIVE with its MDN in the database (a create may answer before
    the carrier gave one, after LINEUP_SYNC_WAIT_SECONDS), or after SETTLE_SECONDS."""
    deadline = time.monotonic() + SETTLE_SECONDS
    while True:
        counts, table = await postgres.line_counts(stack.pg_admin_url, stack.pg_database, batch.ids)
        if min(counts.with_mdn, counts.active) >= total or time.monotonic() > deadline:
            return counts, table
        await asyncio.sleep(1)


async def carrier_activations(stack: Stack, enrollment_ids: list[str]) -> list[int]:
    """How many lines the carrier (the stack's sandbox) opened for each enrollment: a repeated activation
    shows here even when Lineup's own table kept one row."""
    async with httpx.AsyncClient(base_url=stack.sandbox_url, timeout=30) as http:

        async def lines_of(enrollment_id: str) -> int:
            response = await http.get("/sandbox/carrier/lines", params={"enrollment_id": enrollment_id})
            return len(response.raise_for_status().json()["lines"])

        return list(await asyncio.gather(*(lines_of(enrollment_id) for enrollment_id in enrollment_ids)))


async def anomalies(stack: Stack, batch: Enrollments, total: int) -> dict[str, int]:
    """Everything that is not exactly one line, one MDN, one customer and one carrier activation per
    enrollment, every line ACTIVE: from the answers, from PostgreSQL itself and from the carrier's lines."""
    mdns = [mdn for created in batch.answers for mdn in created.mdns if mdn]
    customers = [customer for created in batch.answers for customer in created.customer_ids if customer]
    counts, table = await settled_counts(stack, batch, total)
    activations = await carrier_activations(stack, batch.ids)
    return {
        "failed": len(batch.failures),
        "duplicate_mdns_in_answers": len(mdns) - len(set(mdns)),
        "duplicate_customers_in_answers": len(customers) - len(set(customers)),
        "missing_line_rows": total - counts.lines,
        "lines_without_mdn": counts.lines - counts.with_mdn,
        "lines_not_active": counts.lines - counts.active,
        "duplicate_mdns_in_db": counts.with_mdn - counts.mdns,
        "duplicate_customers_in_db": counts.lines - counts.customers,
        "table_mdn_duplicates": int(table["with_mdn"]) - int(table["mdns"]),  # every line of this stack run
        "missing_carrier_activations": sum(1 for count in activations if count == 0),
        "duplicate_carrier_activations": sum(count - 1 for count in activations if count > 1),
    }


async def t7_enrollments(ctx: Context, baseline_key: str | None) -> list[Figure]:
    """`baseline_key` names the 1 + 1 run's rate when this is the scaled-out run."""
    total = ctx.budget.enrollments
    channels = [Channel(ctx.http) for _ in range(CHANNELS)]
    await run_batch(channels, CHANNELS)  # warm-up: one per channel, every process touched, not counted
    async with stack_database(ctx.stack) as engine:
        before = await footprint(engine)
        async with CpuWindow(ctx.stack) as cpu:
            batch = await run_batch(channels, total)
            found = await anomalies(ctx.stack, batch, total)  # also waits until every line is ACTIVE
        added = (await footprint(engine)).minus(before)
    latencies = [created.elapsed_ms for created in batch.answers]
    early = sum(1 for created in batch.answers if created.ok and not all(created.mdns))
    rate = Figure(
        ctx.key("T7", "rate"),
        "T7",
        f"{ctx.db}: {total} enrollments, {CHANNELS} channels",
        "/s",
        "enrollments",
        value=total / batch.seconds,
        p50_ms=percentile(latencies, 50),
        p99_ms=percentile(latencies, 99),
        count=len(batch.answers),
        errors=len(batch.failures),
        against=baseline_key,
        note="; ".join(batch.failures[:1]),
        extra={"seconds": round(batch.seconds, 2), "answered_before_mdn": early},
    )
    check = Figure(
        ctx.key("T7", "anomalies"),
        "T7",
        f"{ctx.db}: duplicates, missing, failed",
        "count",
        value=float(sum(found.values())),
        count=total,
        goal=Goal("value", "==", 0),
        extra=dict(found),
        note=", ".join(f"{name} {count}" for name, count in found.items() if count),
    )
    if early:  # not a duplicate: the line activated after the answer; said, so the rate is read right
        early_note = f"{early} of {total} answered before the line had its MDN (sync wait passed)"
        rate.note = "; ".join(part for part in (rate.note, early_note) if part)
    per_line = cpu_figure(ctx, "T7", "enrollment", "1-line enrollment (availability + create)", cpu.spent, total)
    return [rate, check, per_line, *footprint_figures(ctx, "T7", "1-line enrollment", added, total)]
