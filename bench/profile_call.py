"""`python -m bench.profile_call` (`make profile`): where one chained authenticated call's time goes.

The API runs in this process — `api.main.app_from_env` served by uvicorn with Lineup's own protocol
(api.edge.ReadTimeouts), one process as T1 runs it — on a fresh migrated and seeded database (SQLite, or a
throwaway PostgreSQL database). bench.loadgen, in its own process, chains update_location_coordinate over 32
connections as T1 does: a warm-up, then N calls with pyinstrument sampling the API's thread. bench.phases sums the
samples by phase; `--write` puts the section into docs/performance.md between its markers, so the document shows
what a run measured, never a hand-made figure. Needs no Temporal: the call does not reach it (the client keeps
trying to connect in the background, off the profiled path)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pyinstrument
import uvicorn
from pyinstrument import Profiler
from pyinstrument.session import Session

from api.edge import ReadTimeouts
from api.main import app_from_env
from bench import bodies, postgres
from bench.__main__ import git_state
from bench.load import Load, LoadResult, run_load
from bench.options import CONNECTIONS
from bench.phases import breakdown, markdown, replace_section
from bench.ports import stack_on_free_ports
from bench.stack import REPO, lineup_binary
from bench.throughput import fresh_tokens
from models.settings import get_settings

DOCUMENT = REPO / "docs" / "performance.md"
DEFAULT_PG = "postgresql://postgres@127.0.0.1:5432/test"


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.profile_call", description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=3000, help="profiled calls (after the warm-up)")
    parser.add_argument("--warmup", type=int, default=500, help="calls before the profiler starts")
    parser.add_argument("--connections", type=int, default=CONNECTIONS, help="chaining connections, as T1")
    parser.add_argument("--database", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--postgres", default=DEFAULT_PG, help="a server to create a throwaway database on")
    parser.add_argument("--interval-ms", type=float, default=1.0, help="pyinstrument's sampling interval")
    parser.add_argument("--write", action="store_true", help=f"put the section into {DOCUMENT.relative_to(REPO)}")
    return parser.parse_args(argv)


def prepare(env: dict[str, str], log: Path) -> None:
    """`lineup db upgrade` and `lineup seed-demo`, as `make run` does, in their own processes."""
    for step in (["db", "upgrade"], ["seed-demo"]):
        with open(log, "ab") as output:
            done = subprocess.run([lineup_binary(), *step], env=env, cwd=REPO, stdout=output, stderr=output)
        if done.returncode != 0:
            raise RuntimeError(f"`lineup {' '.join(step)}` exited with {done.returncode}; see {log}")


def chained(url: str, tokens: list[str], calls: int, work: Path) -> Load:
    """`calls` chained calls, a connection per token (the Python load generator: wrk cannot stop at a count)."""
    return Load(url, "/agent", bodies.UPDATE_LOCATION, bodies.AUTHENTICATE, tokens, 600, work, requests=calls)


async def profile(args: argparse.Namespace, port: int, work: Path) -> tuple[Session, LoadResult, float]:
    """Serves the API in this process, loads it, and returns pyinstrument's session, the profiled run and the
    process CPU seconds spent during it."""
    get_settings.cache_clear()  # the settings of the environment just set, whatever read them before
    config = uvicorn.Config(
        app_from_env(), host="127.0.0.1", port=port, http=ReadTimeouts, access_log=False, log_level="warning"
    )
    server = uvicorn.Server(config)
    serving = asyncio.create_task(server.serve())
    url = f"http://127.0.0.1:{port}"
    try:
        while not server.started:
            if serving.done():
                serving.result()  # raises what stopped it
            await asyncio.sleep(0.05)
        async with httpx.AsyncClient(base_url=url, timeout=30) as http:
            tokens = await fresh_tokens(http, args.connections)
            await run_load(chained(url, tokens, args.warmup, work / "warmup"), "python")
            tokens = await fresh_tokens(http, args.connections)  # /authenticate's argon2 is not the call's
        # The whole thread, event loop and uvicorn included (async_mode follows one task only).
        profiler = Profiler(interval=args.interval_ms / 1000, async_mode="disabled")
        cpu = time.process_time()
        profiler.start()
        result = await run_load(chained(url, tokens, args.calls, work / "profiled"), "python")
        session = profiler.stop()
        cpu = time.process_time() - cpu
    finally:
        server.should_exit = True
        await serving
    return session, result, cpu


def facts(args: argparse.Namespace, result: LoadResult, cpu: float, load: float) -> list[str]:
    database = "a fresh SQLite file" if args.database == "sqlite" else "a throwaway PostgreSQL database"
    return [
        f"Generated by `python -m bench.profile_call --database {args.database} --calls {args.calls} --write` "
        f"(`make profile`) on {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, git {git_state()}; {os.cpu_count()} CPUs, "
        f"load average {load:.2f} before. Do not edit by hand.",
        f"The API in-process (`api.main.app_from_env`, uvicorn with `api.edge.ReadTimeouts`, one process) on "
        f"{database}, migrated and seeded; {result.requests:,} chained update_location_coordinate calls "
        f"({result.ok:,} RESTAPI000, {result.errors} errors) from {args.connections} connections (bench.loadgen, "
        f"its own process), after {args.warmup:,} unprofiled; pyinstrument {pyinstrument.__version__} sampling "
        f"the API's thread every {args.interval_ms:g} ms. The process spent {1000 * cpu / max(result.requests, 1):.2f}"
        " ms of CPU per call under the profiler, whose hook on every Python call weighs most on code made of many "
        "small calls (SQLAlchemy's): read the shares as this run's proportions, not as milliseconds to win back.",
    ]


async def main(args: argparse.Namespace) -> int:
    load = os.getloadavg()[0]
    work = Path(tempfile.mkdtemp(prefix="lineup-profile-"))
    pg_name = await postgres.create_database(args.postgres) if args.database == "postgresql" else ""
    try:
        url = postgres.app_url(args.postgres, pg_name) if pg_name else ""
        settings = stack_on_free_ports(work, url, api_processes=1, worker_processes=1)
        await asyncio.to_thread(prepare, {**os.environ, **settings}, work / "prepare.log")
        os.environ.update(settings)
        # The access log and every other line go to a file, as under `lineup run`: part of the call's cost, none
        # of the terminal's.
        log = await asyncio.to_thread(open, work / "api.log", "a")
        with log, contextlib.redirect_stderr(log):
            session, result, cpu = await profile(args, int(settings["LINEUP_API_PORT"]), work)
        if result.ok == 0:
            raise RuntimeError(f"no call succeeded ({result}); see {work}")
    except BaseException:
        print(f"bench.profile_call: kept {work}", file=sys.stderr)
        raise
    finally:
        if pg_name:
            await postgres.drop_database(args.postgres, pg_name)
    shutil.rmtree(work, ignore_errors=True)
    heading = f"### One chained update_location_coordinate on {'PostgreSQL' if pg_name else 'SQLite'}"
    text = markdown(breakdown(session.frame_records), result.requests, heading, facts(args, result, cpu, load))
    print(text)
    if args.write:
        replace_section(DOCUMENT, f"profile-{args.database}", text)
        print(f"bench.profile_call: written to {DOCUMENT.relative_to(REPO)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse())))
