"""T1: authenticated throughput with chained tokens at 32 connections, beside two apps served by the same uvicorn
command line (same flags, same process count) on the same machine state: a constant answer (what FastAPI and
uvicorn cost at all) and the floor (bench.floor_api: the least work update_location_coordinate asks, in one
plain transaction on the stack's own database). Lineup is judged against the floor."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx

from bench import bodies
from bench.client import authenticate
from bench.context import Context
from bench.load import Load, LoadResult, run_load
from bench.options import CONNECTIONS
from bench.processes import CHILDREN, descendants, terminate
from bench.stack import APP_SPEC, REPO
from bench.stack_processes import ProcessTable, cpu_seconds
from bench.stats import Figure, Goal

BARE_APP = "bench.bare_api:create_app"
FLOOR_APP = "bench.floor_api:create_app"
T1_GOAL = Goal("ratio", ">=", 0.5)  # issue 17: Lineup at least half the floor's throughput


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


async def measure(
    ctx: Context, base_url: str, path: str, body: dict[str, Any], *, tokens: bool, cpu: Callable[[], float]
) -> tuple[LoadResult, float]:
    """A warm-up run, then the measured run, each with fresh tokens (Lineup's, from its /authenticate, also for
    the floor); returns the measured run and the CPU seconds `cpu()` grew by during it."""
    result: LoadResult | None = None
    spent = 0.0
    for seconds in (ctx.budget.load_warmup_s, ctx.budget.load_s):
        chain = await fresh_tokens(ctx.http, CONNECTIONS) if tokens else ["x"] * CONNECTIONS
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


async def side_app(ctx: Context, app: str, name: str, tokens: bool) -> tuple[LoadResult, float]:
    async with side_server(ctx, app, name) as served:
        return await measure(ctx, served.url, "/agent", bodies.UPDATE_LOCATION, tokens=tokens, cpu=served.cpu_seconds)


async def t1_throughput(ctx: Context) -> list[Figure]:
    """Constant answer, floor, then Lineup's update_location_coordinate and plan_list, each at 32 connections."""
    processes = f"{ctx.stack.spec.api_processes} process(es)"
    constant_key, floor_key = ctx.key("T1", "bare"), ctx.key("T1", "floor")
    constant = load_figure(
        constant_key,
        f"{ctx.db}: constant answer, bare FastAPI, {processes} (information)",
        *await side_app(ctx, BARE_APP, "bare-api", tokens=False),
    )
    floor = load_figure(
        floor_key,
        f"{ctx.db}: floor, update_location_coordinate in 1 plain transaction (baseline)",
        *await side_app(ctx, FLOOR_APP, "floor-api", tokens=True),
    )
    floor.against = constant_key
    figures = [constant, floor]
    table = ProcessTable.of(ctx.stack)
    for name, path, body in (
        ("update_location_coordinate", "/agent", bodies.UPDATE_LOCATION),
        ("plan_list", "/plan", bodies.PLAN_LIST),
    ):
        result, cpu_s = await measure(
            ctx, ctx.stack.api_url, path, body, tokens=True, cpu=lambda: table.cpu_seconds().get("api", 0.0)
        )
        same_work = name == "update_location_coordinate"  # the floor's work; plan_list's is other (information)
        label = f"{ctx.db}: {name}, {CONNECTIONS} conns chaining tokens" + ("" if same_work else " (information)")
        figure = load_figure(ctx.key("T1", name), label, result, cpu_s)
        figure.against, figure.goal = floor_key, T1_GOAL if same_work else None
        if constant.value and figure.value is not None:
            figure.extra["ratio_to_constant"] = round(figure.value / constant.value, 3)
            figure.note = f"÷ constant answer: {figure.value / constant.value:.3f} (information)"
        figures.append(figure)
    return figures
