"""The processes as production runs them, on free ports: a PostgreSQL server of the soak's own (soak.postgres; or a
fresh database on a server it is given), the Temporal server with its history on disk, the sandbox, two workers
and the API with two processes (the uvicorn command `lineup run` uses), each under a restart loop. `lineup db
upgrade` and `lineup seed-demo` run first."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlsplit, urlunsplit

import httpx

from bench import postgres
from bench.ports import free_ports, stack_on_free_ports
from bench.stack import REPO, lineup_binary
from cli.run import api_command, child_environments, temporal_command
from models.settings import Settings
from soak import postgres as own_postgres
from soak.keeper import Keeper
from soak.options import Options
from soak.postgres import Cluster

READY_SECONDS = 180.0
WORKERS = ("worker-1", "worker-2")
API_PROCESSES = 2


@dataclass
class SoakStack:
    data_dir: Path
    env: dict[str, str]
    keeper: Keeper
    pg_admin_url: str
    pg_database: str
    cluster: Cluster | None = None  # the soak's own PostgreSQL server, when it runs one

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.env['LINEUP_API_PORT']}"

    @property
    def sandbox_url(self) -> str:
        return f"http://127.0.0.1:{self.env['LINEUP_SANDBOX_PORT']}"

    @property
    def database_url(self) -> str:
        """The soak database for asyncpg (read-only use: counting)."""
        parts = urlsplit(self.pg_admin_url)
        return urlunsplit((parts.scheme, parts.netloc, f"/{self.pg_database}", "", ""))

    def tick_until(self, ready: str, seconds: float = READY_SECONDS) -> None:
        """Keeps the restart loops turning until `ready` answers below 500."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self.keeper.tick()
            try:
                if httpx.get(ready, timeout=2).status_code < 500:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        raise RuntimeError(f"{ready} did not answer within {seconds:.0f} s; logs in {self.keeper.logs}")


def soak_settings(options: Options, data_dir: Path, database_url: str) -> dict[str, str]:
    """LINEUP_* variables of every process: production's, on free ports, with the soak's pacing. A stuck line
    retries itself every 30 s (not 15 min), a line gives up after 5 carrier attempts (~15 s) rather than 8
    (~2 min), ports are polled every 5 s and complete after `port_complete_seconds`, and the sweep looks every
    15 s for work older than 30 s: the soak waits for all of it to settle."""
    return stack_on_free_ports(data_dir, database_url, api_processes=API_PROCESSES, worker_processes=len(WORKERS)) | {
        "LINEUP_SANDBOX_PORT_COMPLETE_SECONDS": str(options.port_complete_seconds),
        "LINEUP_PORT_POLL_SECONDS": "5",
        "LINEUP_CARRIER_MAX_ATTEMPTS": "5",
        "LINEUP_STUCK_RETRY_MINUTES": "0.5",
        "LINEUP_SWEEP_SECONDS": "15",
        "LINEUP_SWEEP_GRACE_SECONDS": "30",
    }


def settings_of(variables: dict[str, str]) -> Settings:
    given = {name.removeprefix("LINEUP_").lower(): value for name, value in variables.items()}
    return Settings(**cast(dict[str, Any], given))  # pydantic turns the strings into each field's type


def _lineup(env: dict[str, str], log: Path, *arguments: str) -> None:
    with open(log, "ab") as output:
        done = subprocess.run([lineup_binary(), *arguments], env=env, cwd=REPO, stdout=output, stderr=output)
    if done.returncode != 0:
        raise RuntimeError(f"`lineup {' '.join(arguments)}` exited with {done.returncode}; see {log}")


def _start_services(stack: SoakStack, variables: dict[str, str]) -> None:
    settings = settings_of(variables)
    keeper, env, python = stack.keeper, stack.env, sys.executable
    keeper.add("temporal", temporal_command(settings), env)
    stack.tick_until(f"http://127.0.0.1:{settings.temporal.ui_port}/api/v1/namespaces")
    keeper.add("sandbox", [python, "-m", "sandbox"], env)
    stack.tick_until(f"{stack.sandbox_url}/sandbox/healthz")
    for name, metrics_port in zip(WORKERS, free_ports(len(WORKERS)), strict=True):
        keeper.add(name, [python, "-m", "worker"], {**env, "LINEUP_WORKER_METRICS_PORT": str(metrics_port)})
    # The API's processes share one emptied PROMETHEUS_MULTIPROC_DIR, as under `lineup run`.
    keeper.add("api", api_command(settings), {**env, **child_environments(settings)["api"]})
    stack.tick_until(f"{stack.api_url}/readyz")
    # /readyz answers 503 until ready; below 500 means it answered at all, so wait for a 200 too.
    deadline = time.monotonic() + READY_SECONDS
    while httpx.get(f"{stack.api_url}/readyz", timeout=5).status_code != 200:
        if time.monotonic() > deadline:
            raise RuntimeError(f"the API was not ready within {READY_SECONDS:.0f} s; logs in {keeper.logs}")
        keeper.tick()
        time.sleep(0.3)


async def _own_server(data_dir: Path, keeper: Keeper) -> Cluster:
    """The soak's PostgreSQL under its restart loop (added first: stopped last), once it answers."""
    cluster = await asyncio.to_thread(own_postgres.create, data_dir)
    keeper.add("postgres", cluster.command(), dict(os.environ))
    deadline = time.monotonic() + READY_SECONDS
    while (problem := await postgres.reachable(cluster.admin_url)) is not None:
        if time.monotonic() > deadline:
            raise RuntimeError(f"the soak's PostgreSQL did not answer: {problem}; logs in {keeper.logs}")
        keeper.tick()
        await asyncio.sleep(0.3)
    return cluster


async def start(options: Options) -> SoakStack:
    data_dir = options.data_dir.resolve()
    (data_dir / "logs").mkdir(parents=True, exist_ok=True)
    keeper = Keeper(data_dir / "logs")
    cluster = await _own_server(data_dir, keeper) if options.own_postgres else None
    admin_url = cluster.admin_url if cluster is not None else options.postgres
    database = await postgres.create_database(admin_url)
    variables = soak_settings(options, data_dir, postgres.app_url(admin_url, database))
    stack = SoakStack(data_dir, {**os.environ, **variables}, keeper, admin_url, database, cluster)
    try:
        setup_log = data_dir / "logs" / "setup.log"
        await asyncio.to_thread(_lineup, stack.env, setup_log, "db", "upgrade")
        await asyncio.to_thread(_lineup, stack.env, setup_log, "seed-demo")
        _start_services(stack, variables)
    except BaseException:
        await stop(stack)
        raise
    return stack


async def stop(stack: SoakStack) -> None:
    """Every process stopped, then the database dropped (the soak's own server's files removed); the data dir
    (logs, histories) stays."""
    await asyncio.to_thread(stack.keeper.stop)
    if stack.cluster is None:
        await postgres.drop_database(stack.pg_admin_url, stack.pg_database)
    else:
        await asyncio.to_thread(shutil.rmtree, stack.cluster.directory, True)
