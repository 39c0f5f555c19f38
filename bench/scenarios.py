"""T2 enrollment latency, T3 lines activated per second, T4 lookup latency — each beside its Temporal
baseline measured on the same server in the same run."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from bench import bodies
from bench.baselines import fan_out_rounds, one_activity_rate, one_activity_rounds, update_with_start_rounds
from bench.client import SUCCESS, ApiError, Channel, describe
from bench.context import Context
from bench.costs import CpuWindow, cpu_figure, footprint_figures, role_figures
from bench.footprint import footprint
from bench.options import CHANNELS
from bench.runs import Runs
from bench.stack_db import stack_database
from bench.stats import Figure, Goal, latency_figure, rate_figure, rate_window, timed_rounds


async def create_round(channel: Channel, lines: int, runs: Runs) -> float:
    """Availability for each line (setup), then the create call alone, timed; every line must get an MDN."""
    ids = [await channel.enrollment_id() for _ in range(lines)]
    created = await channel.create(ids)
    runs.enrollment(ids)
    # A line still activating when the API stopped waiting (LINEUP_SYNC_WAIT_SECONDS) is a failed round, not a
    # sample: its latency would be the wait, not the work.
    if not created.ok or not all(created.mdns):
        raise ApiError(f"create with {lines} line(s) answered {describe(created.answer)}")
    return created.elapsed_ms


async def t2_enrollment_latency(ctx: Context) -> list[Figure]:
    budget, channel = ctx.budget, Channel(ctx.http)
    warm = budget.warmup_rounds
    base = await update_with_start_rounds(ctx.temporal, ctx.queue, budget.uws_rounds, warm)
    one = await timed_rounds(lambda: create_round(channel, 1, ctx.runs), budget.create_1_rounds, warm)
    ten = await timed_rounds(lambda: create_round(channel, 10, ctx.runs), budget.create_10_rounds, max(1, warm - 1))
    base_key, one_key = ctx.key("T2", "update_with_start"), ctx.key("T2", "create_1")
    figures = [
        latency_figure(base_key, "T2", "no-op update-with-start round trip (baseline)", base),
        latency_figure(one_key, "T2", f"{ctx.db}: create_customer_prepaid_multiline, 1 line", one),
        latency_figure(ctx.key("T2", "create_10"), "T2", f"{ctx.db}: create, 10 lines (vs 1 line)", ten),
    ]
    figures[1].against, figures[1].goal = base_key, Goal("ratio", "<=", 3)  # issue 36
    figures[2].against, figures[2].goal = one_key, Goal("ratio", "<=", 2)  # issue 28
    return figures + await fan_out_ceiling(ctx)


async def fan_out_ceiling(ctx: Context) -> list[Figure]:
    """What 10 lines against 1 can be at best while each line is a child workflow: bare one-activity children
    started together by a bare parent, 10 against 1, on the same server and worker count (no goal of its own)."""
    budget, warm = ctx.budget, ctx.budget.warmup_rounds
    one = await fan_out_rounds(ctx.temporal, ctx.queue, 1, budget.create_1_rounds, warm)
    ten = await fan_out_rounds(ctx.temporal, ctx.queue, 10, budget.create_10_rounds * 2, warm)
    one_key = ctx.key("T2", "fan_out_1")
    figures = [
        latency_figure(one_key, "T2", "bare parent + 1 one-activity child (ceiling)", one),
        latency_figure(ctx.key("T2", "fan_out_10"), "T2", "bare parent + 10 children together (vs 1 child)", ten),
    ]
    figures[1].against = one_key
    return figures


async def activate_one(channel: Channel, runs: Runs) -> bool:
    """One channel iteration: availability, then a 1-line NEWACTIVATION; it counts when the line has an MDN."""
    enrollment_id = await channel.enrollment_id()
    created = await channel.create([enrollment_id])
    runs.enrollment([enrollment_id])
    if not created.ok:
        raise ApiError(f"create answered {describe(created.answer)}")
    return bool(created.mdns[0])


def channel_loop(channel: Channel, runs: Runs) -> Callable[[], Awaitable[bool]]:
    return lambda: activate_one(channel, runs)


async def t3_activation_rate(ctx: Context) -> list[Figure]:
    budget = ctx.budget
    base = await one_activity_rate(ctx.temporal, ctx.queue, CHANNELS, budget.rate_warmup_s, budget.rate_s)
    loops = [channel_loop(Channel(ctx.http), ctx.runs) for _ in range(CHANNELS)]
    made = len(ctx.runs.enrollments)
    async with stack_database(ctx.stack) as engine:
        before = await footprint(engine)
        async with CpuWindow(ctx.stack) as cpu:
            lines = await rate_window(loops, budget.rate_warmup_s, budget.rate_s)
        made = len(ctx.runs.enrollments) - made
        added = (await footprint(engine)).minus(before)
    workers = ctx.stack.spec.worker_processes
    base_key = ctx.key("T3", "one_activity_rate")
    label = f"bare one-activity workflows, {CHANNELS} callers, {workers} worker process(es) (baseline)"
    figures = [
        rate_figure(base_key, "T3", label, "workflows", base),
        rate_figure(
            ctx.key("T3", "lines_rate"), "T3", f"{ctx.db}: lines activated, {CHANNELS} channels", "lines", lines
        ),
    ]
    figures[1].against, figures[1].goal = base_key, Goal("ratio", ">=", 0.6)  # issue 36
    # Every call of the window, warm-up and tail included: availability then create, one line each.
    cpu_line = cpu_figure(ctx, "T3", "line", "NEWACTIVATION line (availability + create)", cpu.spent, made)
    figures += [cpu_line, *role_figures(ctx, "T3", cpu_line, "NEWACTIVATION line")]
    return figures + footprint_figures(ctx, "T3", "NEWACTIVATION line", added, added.rows.get("line", 0))


async def lookup_round(channel: Channel, path: str, kind: str, runs: Runs) -> float:
    body = bodies.device_check() if kind == "device" else bodies.nlad_check()
    started = time.perf_counter()
    answer = await channel.call(path, body)
    runs.lookup(kind, channel.request_id)
    if answer.get("msg_code") != SUCCESS:
        raise ApiError(f"{body['action']} answered {describe(answer)}")
    return (time.perf_counter() - started) * 1000


async def t4_lookup_latency(ctx: Context) -> list[Figure]:
    budget, channel = ctx.budget, Channel(ctx.http)
    rounds, warm = budget.lookup_rounds, budget.warmup_rounds
    base = await one_activity_rounds(ctx.temporal, ctx.queue, rounds, warm)
    async with CpuWindow(ctx.stack) as device_cpu:
        device = await timed_rounds(lambda: lookup_round(channel, "/inventory", "device", ctx.runs), rounds, warm)
    async with CpuWindow(ctx.stack) as nlad_cpu:
        nlad = await timed_rounds(lambda: lookup_round(channel, "/nlad", "nlad", ctx.runs), rounds, warm)
    base_key = ctx.key("T4", "one_activity")
    figures = [
        latency_figure(base_key, "T4", "bare one-activity workflow round trip (baseline)", base),
        latency_figure(ctx.key("T4", "device"), "T4", f"{ctx.db}: check_device_compatibility", device),
        latency_figure(ctx.key("T4", "nlad"), "T4", f"{ctx.db}: nlad_etc_check", nlad),
    ]
    for figure in figures[1:]:
        figure.against, figure.goal = base_key, Goal("ratio", "<=", 1.5)
    calls = rounds + warm
    figures.append(cpu_figure(ctx, "T4", "device", "check_device_compatibility", device_cpu.spent, calls))
    return [*figures, cpu_figure(ctx, "T4", "nlad", "nlad_etc_check", nlad_cpu.spent, calls)]
