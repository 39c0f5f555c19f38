"""Which stack runs the selected targets need, and each run's scenarios in order, every failure reported."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from temporalio.client import Client

from bench.baselines import bench_workers
from bench.client import http_client
from bench.context import Context
from bench.load import Tool
from bench.machine import OtherWork
from bench.options import CHANNELS, CONNECTIONS, Options
from bench.pending_ports import t5_pending_ports
from bench.postgres import reachable
from bench.scale_out import t7_enrollments
from bench.scenarios import t2_enrollment_latency, t3_activation_rate, t4_lookup_latency
from bench.stack import StackSpec, running
from bench.stats import Figure
from bench.temporal_actions import t8_actions
from bench.throughput import t1_throughput
from bench.token_table import t6_token_table
from bench.webhook_lag import t9_webhook_lag

# Latency first, on a quiet stack; then the Temporal-bound rate; then HTTP throughput without the baselines'
# worker polling beside it. T7 compares 2 + 2 with the 1 + 1 run on the same database; T1 runs there too,
# against a bare app served by 2 processes as well.
# T6 and T5 last, on a stack of their own: ports the sandbox never completes, the sweep only when T6 triggers
# it, and a retention short enough that the tokens T6 sends over HTTP are purged too. T6 first: T5 leaves
# 10,000 workflows polling behind it.
PORTS_AND_SWEEP = (
    ("LINEUP_SANDBOX_PORT_COMPLETE_SECONDS", "100000000"), ("LINEUP_PORT_POLL_SECONDS", "86400"),
    ("LINEUP_SWEEP_SECONDS", "86400"), ("LINEUP_TOKEN_RETENTION_HOURS", "0.001"),
)  # fmt: skip
# T8 counts the Temporal actions of what the scenarios before it on the same stack ran; on the first stack it also
# follows PORTIN lines to completion, so there ports complete after a few polls (no other scenario there ports).
FAST_PORTS = (("LINEUP_PORT_POLL_SECONDS", "1"), ("LINEUP_SANDBOX_PORT_COMPLETE_SECONDS", "5"))
PLAN: list[tuple[StackSpec, tuple[str, ...]]] = [
    (StackSpec("sqlite", settings=FAST_PORTS), ("T2", "T4", "T3", "T8", "T1")),
    (StackSpec("postgresql"), ("T1", "T7")),
    (StackSpec("postgresql", api_processes=2, worker_processes=2), ("T1", "T7")),
    (StackSpec("sqlite", tag="ports", settings=PORTS_AND_SWEEP), ("T6", "T5", "T8")),
    # T9 on the soak's shape (PostgreSQL, 2 API + 2 worker processes), a stack of its own: its webhook endpoint
    # would add deliveries to every other scenario's work.
    (StackSpec("postgresql", api_processes=2, worker_processes=2, tag="webhooks"), ("T9",)),
]
WITH_BASELINE_WORKERS = ("T2", "T3", "T4")


def failed(target: str, key: str, label: str, why: str) -> Figure:
    return Figure(key, target, label, "ms", note=why[:500])


async def guarded(target: str, ctx: Context, work: Callable[[], Awaitable[list[Figure]]]) -> list[Figure]:
    """Runs one scenario; an exception becomes a FAILED row instead of ending the bench."""
    began, other = time.monotonic(), OtherWork.start()
    print(f"bench: {ctx.stack.spec.name}: {target} …", flush=True)
    try:
        figures = await work()
    except Exception as exc:  # noqa: BLE001 — reported in the table; the other measurements still run
        figures = [failed(target, ctx.key(target, "failed"), f"{ctx.db}: {target}", f"{type(exc).__name__}: {exc}")]
    cores = other.cores()
    for figure in figures:
        figure.other_cores = cores
    print(f"bench: {ctx.stack.spec.name}: {target} done in {time.monotonic() - began:.0f} s", flush=True)
    return figures


def scenario(target: str, ctx: Context, figures: list[Figure]) -> Callable[[], Awaitable[list[Figure]]]:
    if target == "T1":
        return lambda: t1_throughput(ctx)
    if target == "T2":
        return lambda: t2_enrollment_latency(ctx)
    if target == "T3":
        return lambda: t3_activation_rate(ctx)
    if target == "T4":
        return lambda: t4_lookup_latency(ctx)
    if target == "T5":
        return lambda: t5_pending_ports(ctx)
    if target == "T6":
        return lambda: t6_token_table(ctx)
    if target == "T9":
        return lambda: t9_webhook_lag(ctx)
    if target == "T8":
        return lambda: t8_actions(ctx, own=ctx.stack.spec.settings == FAST_PORTS)
    if target == "T7":
        one_and_one = f"T7.{StackSpec('postgresql').name}.rate"
        baseline = (
            one_and_one if ctx.stack.spec.api_processes > 1 and any(f.key == one_and_one for f in figures) else None
        )
        return lambda: t7_enrollments(ctx, baseline)
    raise ValueError(f"no scenario for {target}")


async def run_targets(ctx: Context, targets: list[str], figures: list[Figure]) -> None:
    for target in targets:
        figures.extend(await guarded(target, ctx, scenario(target, ctx, figures)))


async def run_stack(spec: StackSpec, targets: list[str], options: Options, tool: Tool, figures: list[Figure]) -> None:
    async with running(spec, options.postgres) as stack, http_client(stack.api_url, CONNECTIONS + CHANNELS) as http:
        temporal = await Client.connect(stack.temporal_address)
        ctx = Context(stack, http, temporal, options, tool)
        with_workers = [t for t in targets if t in WITH_BASELINE_WORKERS]
        if with_workers:
            async with bench_workers(temporal, spec.worker_processes, stack.data_dir) as queue:
                ctx.queue = queue
                await run_targets(ctx, with_workers, figures)
        await run_targets(ctx, [t for t in targets if t not in WITH_BASELINE_WORKERS], figures)


async def run_plan(options: Options, tool: Tool) -> list[Figure]:
    figures: list[Figure] = []
    postgres_problem = await reachable(options.postgres) if options.wants("T1", "T7", "T9") else None
    for spec, targets in PLAN:
        wanted = [target for target in targets if target in options.only] if options.runs(spec.name) else []
        if not wanted or (wanted == ["T8"] and spec.settings != FAST_PORTS):  # nothing there for T8 to count
            continue
        if spec.database == "postgresql" and postgres_problem:
            why = f"not measured: PostgreSQL unreachable ({postgres_problem})"
            figures.extend(failed(t, f"{t}.{spec.name}.failed", spec.label, why) for t in wanted)
            continue
        print(f"bench: starting the stack: {spec.label}", flush=True)
        began = time.monotonic()
        try:
            await run_stack(spec, wanted, options, tool, figures)
        except Exception as exc:  # noqa: BLE001 — a stack that would not start fails its rows only
            why = f"{type(exc).__name__}: {exc}"
            figures.extend(failed(t, f"{t}.{spec.name}.stack", spec.label, why) for t in wanted)
        print(f"bench: {spec.label}: finished in {time.monotonic() - began:.0f} s", flush=True)
    return figures
