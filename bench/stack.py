"""The stack as `make run` starts it — `lineup db upgrade`, `lineup seed-demo`, `lineup run` — on free
ports, in a temporary data dir, against SQLite or a throwaway PostgreSQL database."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import httpx

from bench import postgres
from bench.ports import free_ports, stack_on_free_ports
from bench.processes import CHILDREN, command_line, descendants, terminate

READY_TIMEOUT_SECONDS = 180.0
STOP_GRACE_SECONDS = 60.0  # lineup run itself gives each stage 15 s
REPO = Path(__file__).resolve().parent.parent
APP_SPEC = re.compile(r"^[\w.]+:[\w.]+$")  # uvicorn's `module:attribute` argument
OPEN_DIRS: set[Path] = set()  # data dirs of stacks not stopped yet: removed on the way out


@dataclass(frozen=True)
class StackSpec:
    """One configuration of the stack: database and process counts, and settings a scenario needs changed
    (`tag` names them in the row keys and the log, e.g. `sqlite-1x1-ports`)."""

    database: Literal["sqlite", "postgresql"]
    api_processes: int = 1
    worker_processes: int = 1
    tag: str = ""
    settings: tuple[tuple[str, str], ...] = ()  # LINEUP_* variables on top of the environment

    @property
    def name(self) -> str:
        return f"{self.database}-{self.api_processes}x{self.worker_processes}" + (f"-{self.tag}" if self.tag else "")

    @property
    def label(self) -> str:
        db = "SQLite" if self.database == "sqlite" else "PostgreSQL"
        counts = f"{self.api_processes}+{self.worker_processes}"
        changed = f", {' '.join(f'{name}={value}' for name, value in self.settings)}" if self.settings else ""
        return f"{db} {counts} ({self.api_processes} API + {self.worker_processes} worker processes{changed})"


@dataclass
class Stack:
    """A running stack: where its API and Temporal answer, and what it was started with."""

    spec: StackSpec
    data_dir: Path
    env: dict[str, str]
    process: subprocess.Popen[bytes] | None = None
    pg_admin_url: str = ""
    pg_database: str = ""
    spare_port: int = 0
    stopping: bool = False  # set by the stop, so a start still under way in its thread gives up

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.env['LINEUP_API_PORT']}"

    @property
    def sandbox_url(self) -> str:
        return f"http://127.0.0.1:{self.env['LINEUP_SANDBOX_PORT']}"

    @property
    def temporal_address(self) -> str:
        return self.env["LINEUP_TEMPORAL_ADDRESS"]

    @property
    def log(self) -> Path:
        return self.data_dir / "lineup-run.log"

    def api_server_command(self) -> list[str]:
        """The uvicorn command line `lineup run` serves the API with, read from the running process."""
        assert self.process is not None
        for process in descendants(self.process.pid):
            argv = command_line(process.pid)
            if "uvicorn" in " ".join(argv[:3]) and any(APP_SPEC.match(arg) for arg in argv):
                return argv
        raise RuntimeError("no uvicorn process under `lineup run`: cannot serve the bare app the same way")


def lineup_binary() -> str:
    found = Path(sys.executable).parent / "lineup"
    return str(found) if found.exists() else (shutil.which("lineup") or "lineup")


def stack_env(data_dir: Path, spec: StackSpec, database_url: str) -> tuple[dict[str, str], int]:
    """The environment `make run` would get, with the bench's ports, data dir and process counts on top."""
    workers = spec.worker_processes
    overrides = stack_on_free_ports(data_dir, database_url, api_processes=spec.api_processes, worker_processes=workers)
    # Worker n's metrics on base + n: the whole run free, or the second worker meets a port taken meanwhile. Not
    # the default 9464: a `make run` beside the bench would keep the bench's worker from starting.
    [metrics] = free_ports(1, run=max(workers, 1))
    [spare] = free_ports(1)
    overrides |= {"LINEUP_WORKER_METRICS_PORT": str(metrics), **dict(spec.settings)}
    return {**os.environ, **overrides}, spare


def _run_cli(env: dict[str, str], log: Path, *arguments: str) -> None:
    with open(log, "ab") as output:
        done = subprocess.run([lineup_binary(), *arguments], env=env, cwd=REPO, stdout=output, stderr=output)
    if done.returncode != 0:
        raise RuntimeError(f"`lineup {' '.join(arguments)}` exited with {done.returncode}; see {log}")


def _wait_ready(stack: Stack) -> None:
    assert stack.process is not None
    deadline = time.monotonic() + READY_TIMEOUT_SECONDS
    while time.monotonic() < deadline and not stack.stopping:
        if stack.process.poll() is not None:
            raise RuntimeError(f"`lineup run` exited with {stack.process.returncode}; see {stack.log}")
        try:
            if httpx.get(f"{stack.api_url}/readyz", timeout=2.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise RuntimeError(f"the stack was stopped or not ready within {READY_TIMEOUT_SECONDS:.0f} s; see {stack.log}")


def _start(stack: Stack) -> None:
    _run_cli(stack.env, stack.log, "db", "upgrade")
    _run_cli(stack.env, stack.log, "seed-demo")
    if stack.stopping:
        raise RuntimeError("stopped while starting")
    # cwd as `make run` has it; the bench's bare app is importable from there too.
    stack.process = CHILDREN.spawn([lineup_binary(), "run"], env=stack.env, log=stack.log, cwd=REPO)
    _wait_ready(stack)
    CHILDREN.note_descendants(stack.process.pid)


def _stop(stack: Stack) -> None:
    stack.stopping = True
    if stack.process is None:
        return
    started = CHILDREN.note_descendants(stack.process.pid)
    terminate(stack.process, STOP_GRACE_SECONDS)
    for leftover in started:  # orphans are re-parented away from `lineup run`: kill them by identity
        leftover.kill()


@asynccontextmanager
async def running(spec: StackSpec, pg_admin_url: str) -> AsyncIterator[Stack]:
    """Starts the stack, yields it once /readyz answers 200, and stops all of it however the block ends."""
    data_dir = Path(tempfile.mkdtemp(prefix=f"lineup-bench-{spec.name}-"))
    OPEN_DIRS.add(data_dir)
    pg_database = await postgres.create_database(pg_admin_url) if spec.database == "postgresql" else ""
    url = postgres.app_url(pg_admin_url, pg_database) if pg_database else ""
    env, spare = stack_env(data_dir, spec, url)
    stack = Stack(spec, data_dir, env, None, pg_admin_url, pg_database, spare)
    failed = False
    try:
        await asyncio.to_thread(_start, stack)
        yield stack
    except Exception:
        failed = True  # logs are kept for a failure, not for an interruption
        raise
    finally:
        await asyncio.to_thread(_stop, stack)
        if pg_database:
            await postgres.drop_database(pg_admin_url, pg_database)
        OPEN_DIRS.discard(data_dir)
        if failed:
            print(f"bench: {spec.name}: logs kept in {data_dir}", flush=True)
        else:
            shutil.rmtree(data_dir, ignore_errors=True)
