"""T1's steady row: the CPU one authenticated call costs the API process, beside the shared floor's, both served
in this process through ASGI (no socket, no server, no other caller) and called one after another, so neither
the load generator nor another process's work moves the figure much. The throughput rows answer "how many
calls a second"; this one answers "how much of the API's own work does a call take", which is what a change
to the call's path moves, and it moves by the same amount on a quiet or a busy machine.

It is the row that would have caught issue 36's PostgreSQL regression: the throughput ratio on PostgreSQL
swung between runs by more than that regression, while the process CPU per call did not.

Both apps get the same calls: a chain of `update_location_coordinate` (the shared floor's one action), each
answer's token carried to the next call. Lineup's app is `api.main.create_app` on a database `lineup db upgrade`
and `lineup seed-demo` made (SQLite in the work dir, or a throwaway PostgreSQL database); the floor is
`floor_app.py` of the shared folder (bench.shared_floor) on its own SQLite file or throwaway database.

Also runnable alone, e.g. against another checkout for a bisect:
`PYTHONPATH=<checkout> python -m bench.call_cpu --database postgresql` (the checkout's api/ and models/ are
measured; its `lineup` command prepares the database)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import json
import logging
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx

from bench import bodies, postgres
from bench.shared_floor import floor_dir, missing
from bench.stack import lineup_binary

WARMUP_CALLS = 300
DEFAULT_CALLS = 2000
DEFAULT_PG = "postgresql://postgres@127.0.0.1:5432/test"


ROUNDS = 5  # the apps take turns, a share of the calls each turn; each app's figure is its best turn


@dataclass(frozen=True)
class CallCpu:
    """One app's chained calls: the CPU this thread spent and the wall time each call took (ms) in its best turn,
    and how many calls succeeded in all."""

    cpu_ms: float
    wall_ms: float
    calls: int
    ok: int


@dataclass
class Chain:
    """An app's chain of calls: each carries the token the previous answer gave."""

    http: httpx.AsyncClient
    token: str
    ok: int = 0

    async def run(self, calls: int) -> tuple[float, float]:
        """`calls` calls one after another: this thread's CPU and the wall time, per call (ms)."""
        cpu, wall = time.thread_time(), time.perf_counter()
        for _ in range(calls):
            answer = (await self.http.post("/agent", json=bodies.UPDATE_LOCATION, headers={"token": self.token})).json()
            if answer.get("msg_code") != "RESTAPI000":
                raise RuntimeError(f"the chain broke: {answer}")
            self.token, self.ok = answer["token"], self.ok + 1
        cpu, wall = time.thread_time() - cpu, time.perf_counter() - wall
        return 1000 * cpu / calls, 1000 * wall / calls


@asynccontextmanager
async def serving(app: Any) -> AsyncIterator[httpx.AsyncClient]:
    """The app's lifespan run, and a client that calls it through ASGI (Starlette's documented lifespan)."""
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 40000))
        async with httpx.AsyncClient(transport=transport, base_url="http://lineup.test", timeout=60) as http:
            yield http


def prepare(env: dict[str, str], work: Path) -> None:
    """`lineup db upgrade` and `lineup seed-demo`, as `make run` does, in their own processes."""
    for step in (["db", "upgrade"], ["seed-demo"]):
        with open(work / "prepare.log", "ab") as log:
            done = subprocess.run([lineup_binary(), *step], env=env, stdout=log, stderr=log, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"`lineup {' '.join(step)}` exited with {done.returncode}; see {work}")


@asynccontextmanager
async def throwaway(database: str, admin_url: str) -> AsyncIterator[str]:
    """A PostgreSQL database made for the run and dropped after it ("" on SQLite)."""
    name = await postgres.create_database(admin_url) if database == "postgresql" else ""
    try:
        yield name
    finally:
        if name:
            await postgres.drop_database(admin_url, name)


@asynccontextmanager
async def lineup_chain(database: str, admin_url: str, work: Path) -> AsyncIterator[Chain]:
    """Lineup's app, on a fresh database made as `make run` makes it, with its first token."""
    async with throwaway(database, admin_url) as pg_name:
        settings = {
            "LINEUP_DATA_DIR": str(work / "lineup"),
            "LINEUP_DATABASE_URL": postgres.app_url(admin_url, pg_name) if pg_name else "",
            "LINEUP_TEMPORAL_ADDRESS": "127.0.0.1:1",  # the call never reaches Temporal; nothing listens there
        }
        await asyncio.to_thread(prepare, {**os.environ, **settings}, work)
        os.environ.update(settings)
        from api.main import app_from_env
        from models.settings import get_settings

        get_settings.cache_clear()
        # Its log lines go to a file, as under `lineup run`: part of the call's cost, none of a terminal's.
        log = await asyncio.to_thread(open, work / "api.log", "a")
        with log, contextlib.redirect_stderr(log):  # open as long as the app logs (its handler holds the file)
            async with serving(app_from_env()) as http:
                answer = (await http.post("/authenticate", json=bodies.AUTHENTICATE)).json()
                yield Chain(http, answer["token"])


def _floor_module(directory: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("floor_app", directory / "floor_app.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # pydantic resolves the module's postponed annotations through it
    spec.loader.exec_module(module)
    return module


@asynccontextmanager
async def floor_chain(database: str, admin_url: str, work: Path) -> AsyncIterator[Chain]:
    """The shared floor's app, as its README configures it (FLOOR_DB, FLOOR_PG, FLOOR_TOKENS, FLOOR_N)."""
    directory = floor_dir()
    if (why := missing(directory)) is not None:
        raise RuntimeError(why)
    tokens_file = work / "floor-tokens"
    async with throwaway(database, admin_url) as pg_name:
        os.environ.update(
            FLOOR_DB="postgres" if pg_name else "sqlite",
            FLOOR_PG=postgres.database_url(admin_url, pg_name) if pg_name else "",
            FLOOR_TOKENS=str(tokens_file),
            FLOOR_N="1",
            TMPDIR=str(work),  # its SQLite file is made with mkdtemp: in the work dir, and gone with it
        )
        module = _floor_module(directory)
        try:
            async with serving(module.app) as http:
                yield Chain(http, tokens_file.read_text().split()[0])
        finally:
            # Its lifespan leaves its pool open (a process that ends closes it); here the process goes on, and the
            # pool would keep reconnecting to the database dropped next.
            pool = getattr(getattr(module, "store", None), "pool", None)
            if pool is not None:
                await pool.close()


async def constant(scope: Any, receive: Any, send: Any) -> None:
    """An app that answers every call with a fresh-looking token and does nothing else: what calling costs."""
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    while (await receive()).get("more_body"):
        pass
    body = b'{"msg_code":"RESTAPI000","msg":"Success","token":"t"}'
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


@asynccontextmanager
async def calling_chain() -> AsyncIterator[Chain]:
    """The calling itself (httpx through ASGI, the chain's loop), against the constant app."""
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=constant), base_url="http://lineup.test") as http:
        yield Chain(http, "t")


async def both(database: str, admin_url: str, calls: int) -> dict[str, CallCpu]:
    """The calling, the floor's and Lineup's calls, in this process, taking turns: each app's best turn is its
    figure, so a burst of other work on the machine during one turn moves none of them."""
    saved = {name: value for name, value in os.environ.items() if name.startswith(("LINEUP_", "FLOOR_", "TMPDIR"))}
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level  # Lineup's app installs its own, on a file gone afterwards
    try:
        with tempfile.TemporaryDirectory(prefix="lineup-call-cpu-") as work:
            async with contextlib.AsyncExitStack() as apps:
                chains: dict[str, Chain] = {"client": await apps.enter_async_context(calling_chain())}
                for name, opened in (("floor", floor_chain), ("lineup", lineup_chain)):
                    place = Path(work) / name
                    place.mkdir()
                    chains[name] = await apps.enter_async_context(opened(database, admin_url, place))
                for chain in chains.values():
                    await chain.run(WARMUP_CALLS)
                turns: dict[str, list[tuple[float, float]]] = {name: [] for name in chains}
                share = max(1, calls // ROUNDS)
                for _ in range(ROUNDS):
                    for name, chain in chains.items():
                        turns[name].append(await chain.run(share))
                return {
                    name: CallCpu(*min(turns[name]), share * ROUNDS, chain.ok - WARMUP_CALLS)
                    for name, chain in chains.items()
                }
    finally:
        for name in [name for name in os.environ if name.startswith(("LINEUP_", "FLOOR_", "TMPDIR"))]:
            del os.environ[name]
        os.environ.update(saved)
        root.handlers[:], root.level = handlers, level
        from models.settings import get_settings

        get_settings.cache_clear()  # the bench's own settings again (its data dir, where its report goes)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.call_cpu", description=__doc__.split("\n")[0])
    parser.add_argument("--database", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--postgres", default=DEFAULT_PG, help="a server to create throwaway databases on")
    parser.add_argument("--calls", type=int, default=DEFAULT_CALLS)
    args = parser.parse_args(argv)
    found = asyncio.run(both(args.database, args.postgres, args.calls))
    client, floor, lineup = found["client"].cpu_ms, found["floor"].cpu_ms, found["lineup"].cpu_ms
    print(
        json.dumps(
            {
                "database": args.database,
                "client_cpu_ms": round(client, 4),
                "floor_cpu_ms": round(floor - client, 4),
                "lineup_cpu_ms": round(lineup - client, 4),
                "ratio": round((floor - client) / (lineup - client), 3),
                "floor_wall_ms": round(found["floor"].wall_ms, 4),
                "lineup_wall_ms": round(found["lineup"].wall_ms, 4),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
