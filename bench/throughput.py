"""T1: authenticated throughput with chained tokens at 32 connections, beside a bare FastAPI app served by
the same uvicorn command line (same flags, same process count) on the same machine state."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx

from bench import bodies
from bench.client import authenticate
from bench.context import Context
from bench.load import Load, LoadResult, run_load
from bench.options import CONNECTIONS
from bench.processes import CHILDREN, terminate
from bench.stack import APP_SPEC, REPO
from bench.stats import Figure, Goal

BARE_APP = "bench.bare_api:create_app"
T1_GOAL = Goal("ratio", ">=", 0.3)


def bare_command(api_command: list[str], port: int) -> list[str]:
    """The API's own uvicorn argv with only the application and the port swapped."""
    swapped = [BARE_APP if APP_SPEC.match(arg) else arg for arg in api_command]
    for index, arg in enumerate(swapped):
        if arg == "--port":
            swapped[index + 1] = str(port)
        elif arg.startswith("--port="):
            swapped[index] = f"--port={port}"
    return swapped


@asynccontextmanager
async def bare_server(ctx: Context) -> AsyncIterator[str]:
    port = ctx.stack.spare_port
    command = bare_command(ctx.stack.api_server_command(), port)
    process = CHILDREN.spawn(command, env=dict(os.environ), log=ctx.stack.data_dir / "bare-api.log", cwd=REPO)
    url = f"http://127.0.0.1:{port}"
    try:
        await _wait_answering(url)
        yield url
    finally:
        await asyncio.to_thread(terminate, process, 15.0)


async def _wait_answering(url: str) -> None:
    async with httpx.AsyncClient(base_url=url) as http:
        for _ in range(150):
            try:
                if (await http.post("/agent", json={})).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            await asyncio.sleep(0.2)
    raise RuntimeError(f"the bare app did not answer on {url}")


async def fresh_tokens(http: httpx.AsyncClient, count: int) -> list[str]:
    """One pre-authenticated token per connection, a few at a time (each costs an argon2 check)."""
    gate = asyncio.Semaphore(4)

    async def one() -> str:
        async with gate:
            return await authenticate(http)

    return await asyncio.gather(*(one() for _ in range(count)))


async def measure(ctx: Context, base_url: str, path: str, body: dict[str, Any], bare: bool) -> LoadResult:
    """A warm-up run, then the measured run, each with fresh tokens."""
    result: LoadResult | None = None
    for seconds in (ctx.budget.load_warmup_s, ctx.budget.load_s):
        tokens = ["x"] * CONNECTIONS if bare else await fresh_tokens(ctx.http, CONNECTIONS)
        work = Path(ctx.stack.data_dir) / "load"
        load = Load(base_url, path, body, bodies.AUTHENTICATE, tokens, seconds, work)
        result = await run_load(load, ctx.tool)
    assert result is not None
    return result


def load_figure(key: str, label: str, result: LoadResult) -> Figure:
    return Figure(
        key, "T1", label, "/s", "req", value=result.rate, p50_ms=result.p50_ms, p99_ms=result.p99_ms,
        count=result.ok, errors=result.errors,
        extra={"tool": result.tool, "seconds": round(result.seconds, 2), "requests": result.requests,
               "failed": result.failed, "reauth": result.reauth, "socket_errors": result.socket_errors,
               "timeouts": result.timeouts, "max_ms": round(result.max_ms, 1), "connections": CONNECTIONS},
    )  # fmt: skip


async def t1_throughput(ctx: Context) -> list[Figure]:
    """Bare app first, then update_location_coordinate and plan_list, each at 32 connections."""
    async with bare_server(ctx) as bare_url:
        bare = await measure(ctx, bare_url, "/agent", bodies.UPDATE_LOCATION, bare=True)
    processes = f"{ctx.stack.spec.api_processes} process(es)"
    base_key = ctx.key("T1", "bare")
    figures = [load_figure(base_key, f"{ctx.db}: bare FastAPI app, {processes}, {CONNECTIONS} conns (baseline)", bare)]
    for name, path, body in (("update_location_coordinate", "/agent", bodies.UPDATE_LOCATION),
                             ("plan_list", "/plan", bodies.PLAN_LIST)):  # fmt: skip
        result = await measure(ctx, ctx.stack.api_url, path, body, bare=False)
        figure = load_figure(ctx.key("T1", name), f"{ctx.db}: {name}, {CONNECTIONS} conns chaining tokens", result)
        figure.against, figure.goal = base_key, T1_GOAL
        figures.append(figure)
    return figures
