"""T1: authenticated throughput with chained tokens at 32 connections, beside three apps on the same machine state,
each under the same load: the shared floor (bench.shared_floor: ../shared/bench's floor_app.py served as its README
says), which Lineup is judged against; and, for information, two served by Lineup's own uvicorn command line (same
flags, same process count): a constant answer (what FastAPI and uvicorn cost at all) and Lineup's own floor
(bench.floor_api: the floor's work on Lineup's schema, in the stack's own database). Lineup's own floor tells the
cost of Lineup's schema and server command from the cost of its code."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx

from bench import bodies
from bench.call_cpu import both
from bench.client import authenticate
from bench.context import Context
from bench.load import Load, LoadResult, run_load
from bench.options import CONNECTIONS
from bench.processes import CHILDREN, descendants, terminate
from bench.shared_floor import TOKENS, floor_dir, missing, shared_floor
from bench.stack import APP_SPEC, REPO
from bench.stack_processes import ProcessTable, cpu_seconds
from bench.stats import Figure, Goal

BARE_APP = "bench.bare_api:create_app"
OWN_FLOOR_APP = "bench.floor_api:create_app"
# Issue 28: Lineup ÷ the shared floor, on one API process as the floor runs.
GOALS = {"sqlite": Goal("ratio", ">=", 0.5), "postgresql": Goal("ratio", ">=", 0.8)}
# The same goals said of CPU per call (Lineup's ÷ the floor's): a call that costs 2× the floor's work, 1.25×.
CPU_GOALS = {"sqlite": Goal("ratio", "<=", 2.0), "postgresql": Goal("ratio", "<=", 1.25)}


def served_command(api_command: list[str], app: str, port: int) -> list[str]:
    """The API's own uvicorn argv with only the application and the port swapped."""
    swapped = [app if APP_SPEC.match(arg) else arg for arg in api_command]
    for index, arg in enumerate(swapped):
        if arg == "--port":
            swapped[index + 1] = str(port)
        elif arg.startswith("--port="):
            swapped[index] = f"--port={port}"
    return swapped


def bare_command(api_command: list[str], port: int) -> list[str]:
    return served_command(api_command, BARE_APP, port)


class Served:
    """A side app under way: where it answers, and the CPU its processes (uvicorn and its workers) spent."""

    def __init__(self, url: str, pid: int) -> None:
        self.url, self.pid = url, pid

    def cpu_seconds(self) -> float:
        return cpu_seconds(self.pid) + sum(cpu_seconds(child.pid) for child in descendants(self.pid))


@asynccontextmanager
async def side_server(ctx: Context, app: str, name: str) -> AsyncIterator[Served]:
    """`app` served as Lineup's API is, in the stack's environment (so the floor opens the stack's database)."""
    port = ctx.stack.spare_port
    command = served_command(ctx.stack.api_server_command(), app, port)
    process = CHILDREN.spawn(command, env=dict(ctx.stack.env), log=ctx.stack.data_dir / f"{name}.log", cwd=REPO)
    url = f"http://127.0.0.1:{port}"
    try:
        await _wait_answering(url, name)
        yield Served(url, process.pid)
    finally:
        await asyncio.to_thread(terminate, process, 15.0)


async def _wait_answering(url: str, name: str) -> None:
    async with httpx.AsyncClient(base_url=url) as http:
        for _ in range(150):
            try:
                if (await http.post("/agent", json={})).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            await asyncio.sleep(0.2)
    raise RuntimeError(f"the {name} app did not answer on {url}")


async def fresh_tokens(http: httpx.AsyncClient, count: int) -> list[str]:
    """One pre-authenticated token per connection, a few at a time (each costs an argon2 check)."""
    gate = asyncio.Semaphore(4)

    async def one() -> str:
        async with gate:
            return await authenticate(http)

    return await asyncio.gather(*(one() for _ in range(count)))


Chains = Callable[[int], Awaitable[list[str]]]  # run 0 (the warm-up), run 1 (measured) → one token a connection


def lineup_tokens(ctx: Context) -> Chains:
    """Fresh tokens from Lineup's /authenticate for each run (also what Lineup's own floor claims)."""
    return lambda _run: fresh_tokens(ctx.http, CONNECTIONS)


async def no_tokens(_run: int) -> list[str]:
    return ["x"] * CONNECTIONS  # the constant answer checks none


async def measure(
    ctx: Context, base_url: str, path: str, body: dict[str, Any], *, chains: Chains, cpu: Callable[[], float]
) -> tuple[LoadResult, float]:
    """A warm-up run, then the measured run, each with its own chain of tokens; returns the measured run and
    the CPU seconds `cpu()` grew by during it."""
    result: LoadResult | None = None
    spent = 0.0
    for run, seconds in enumerate((ctx.budget.load_warmup_s, ctx.budget.load_s)):
        chain = await chains(run)
        load = Load(base_url, path, body, bodies.AUTHENTICATE, chain, seconds, Path(ctx.stack.data_dir) / "load")
        before = cpu()
        result = await run_load(load, ctx.tool)
        spent = cpu() - before
    assert result is not None
    return result, spent


def load_figure(key: str, label: str, result: LoadResult, cpu_s: float) -> Figure:
    return Figure(
        key,
        "T1",
        label,
        "/s",
        "req",
        value=result.rate,
        p50_ms=result.p50_ms,
        p99_ms=result.p99_ms,
        count=result.ok,
        errors=result.errors,
        extra={
            "tool": result.tool,
            "seconds": round(result.seconds, 2),
            "requests": result.requests,
            "failed": result.failed,
            "reauth": result.reauth,
            "socket_errors": result.socket_errors,
            "timeouts": result.timeouts,
            "max_ms": round(result.max_ms, 1),
            "connections": CONNECTIONS,
            "server_cpu_s": round(cpu_s, 3),
            "server_cpu_ms_per_call": round(cpu_s * 1000 / result.ok, 3) if result.ok else None,
        },
    )


async def side_app(ctx: Context, app: str, name: str, chains: Chains) -> tuple[LoadResult, float]:
    async with side_server(ctx, app, name) as served:
        return await measure(ctx, served.url, "/agent", bodies.UPDATE_LOCATION, chains=chains, cpu=served.cpu_seconds)


async def shared_floor_figure(ctx: Context) -> Figure:
    """The baseline: ../shared/bench's floor under the same load, or a row saying why it was not measured."""
    key, directory = ctx.key("T1", "shared_floor"), floor_dir()
    label = f"{ctx.db}: the floor of ../shared/bench (floor_app.py as its README serves it, 1 process) (baseline)"
    if why := missing(directory):
        return Figure(key, "T1", label, "/s", "req", note=why)
    async with shared_floor(ctx.stack, directory, ctx.stack.spare_port) as floor:
        served = Served(floor.url, floor.pid)

        async def chains(run: int) -> list[str]:
            return floor.chains[run]

        result, cpu_s = await measure(
            ctx, floor.url, "/agent", bodies.UPDATE_LOCATION, chains=chains, cpu=served.cpu_seconds
        )
    figure = load_figure(key, label, result, cpu_s)
    figure.note = f"{directory}, FLOOR_DB on {floor.database}, {TOKENS} tokens written on start (warm-up's, run's)"
    figure.extra["floor_dir"] = str(directory)
    return figure


def judged(ctx: Context, figure: Figure, baseline: str) -> None:
    """Lineup's update_location_coordinate against the shared floor, with issue 28's goal for its database:
    on one API process, as the floor runs (2 processes against its 1 is information)."""
    figure.against = baseline
    if ctx.stack.spec.api_processes == 1:
        figure.goal = GOALS[ctx.stack.spec.database]
    else:
        figure.label += f" (information: {ctx.stack.spec.api_processes} API processes against the floor's 1)"


def ratios_note(figure: Figure, others: dict[str, tuple[str, Figure]]) -> None:
    """The figure ÷ each information row (`ratio_to_<name>` in its extra), said in its note."""
    said = []
    for name, (label, other) in others.items():
        if other.value and figure.value is not None:
            figure.extra[f"ratio_to_{name}"] = round(figure.value / other.value, 3)
            said.append(f"÷ {label}: {figure.value / other.value:.3f}")
    figure.note = "; ".join(said) + (" (information)" if said else "")


async def t1_throughput(ctx: Context) -> list[Figure]:
    """The constant answer, Lineup's own floor, the shared floor, then Lineup's update_location_coordinate and
    plan_list, each at 32 chaining connections; the shared floor right before Lineup, so the two see the same
    machine."""
    processes = f"{ctx.stack.spec.api_processes} process(es)"
    constant = load_figure(
        ctx.key("T1", "bare"),
        f"{ctx.db}: constant answer, bare FastAPI, {processes} (information)",
        *await side_app(ctx, BARE_APP, "bare-api", no_tokens),
    )
    own = load_figure(
        ctx.key("T1", "own_floor"),
        f"{ctx.db}: Lineup's own floor (bench/floor_api.py: that work on Lineup's schema and uvicorn command), "
        f"{processes} (information)",
        *await side_app(ctx, OWN_FLOOR_APP, "own-floor-api", lineup_tokens(ctx)),
    )
    shared = await shared_floor_figure(ctx)
    own.against = shared.key
    figures = [constant, own, shared]
    table = ProcessTable.of(ctx.stack)
    for name, path, body in (
        ("update_location_coordinate", "/agent", bodies.UPDATE_LOCATION),
        ("plan_list", "/plan", bodies.PLAN_LIST),
    ):
        result, cpu_s = await measure(
            ctx,
            ctx.stack.api_url,
            path,
            body,
            chains=lineup_tokens(ctx),
            cpu=lambda: table.cpu_seconds().get("api", 0.0),
        )
        label = f"{ctx.db}: {name}, {CONNECTIONS} conns chaining tokens"
        figure = load_figure(ctx.key("T1", name), label, result, cpu_s)
        if name == "update_location_coordinate":
            judged(ctx, figure, shared.key)
            ratios_note(figure, {"constant": ("constant answer", constant), "own_floor": ("Lineup's own floor", own)})
        else:  # other work than the floor's: beside it for scale only
            figure.label += " (information)"
            figure.against = shared.key
            ratios_note(figure, {"constant": ("constant answer", constant)})
        figures.append(figure)
    if ctx.stack.spec.api_processes == 1:
        figures += await call_cpu_figures(ctx)
    return figures


async def call_cpu_figures(ctx: Context) -> list[Figure]:
    """bench.call_cpu: the API's own CPU per call, the floor's and Lineup's, one call at a time in this process —
    the steady row beside the throughput ones (which another process's work moves by more than a regression)."""
    database = ctx.stack.spec.database
    found = await both(database, ctx.options.postgres, ctx.options.budget.cpu_calls)
    client = found["client"].cpu_ms
    floor_key, how = ctx.key("T1", "floor_call_cpu"), "in-process, one call at a time, net of the calling"
    floor = Figure(
        floor_key,
        "T1",
        f"{ctx.db}: CPU per call, the floor of ../shared/bench ({how}) (baseline)",
        "ms",
        "call",
        value=found["floor"].cpu_ms - client,
        count=found["floor"].calls,
    )
    lineup = Figure(
        ctx.key("T1", "call_cpu"),
        "T1",
        f"{ctx.db}: CPU per update_location_coordinate ({how})",
        "ms",
        "call",
        value=found["lineup"].cpu_ms - client,
        count=found["lineup"].ok,
        against=floor_key,
        goal=CPU_GOALS[database],
        note=f"calling (httpx through ASGI) {client:.3f} ms a call, taken off both",
    )
    return [floor, lineup]
