"""`make bench`: issue 11's measurements against the stack started as `make run` starts it, as one table
of medians, p99s and ratios to baselines measured in the same run (also written as JSON)."""

from __future__ import annotations

import asyncio
import json
import os
import platform
import shutil
import signal
import subprocess
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy.pool import QueuePool

from bench import capacity, goals, postgres
from bench.load import choose_tool
from bench.options import Options, parse
from bench.phases import replace_section
from bench.processes import CHILDREN, exit_now
from bench.reading import Drift
from bench.report import table, write_json
from bench.runner import run_plan
from bench.stack import OPEN_DIRS, REPO
from bench.stats import Figure
from models.db import postgres_engine
from models.settings import PortingSettings, Settings, get_settings

CAPACITY_DOC = REPO / "docs" / "capacity.md"


def git_state() -> str:
    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, check=False)
        return done.stdout.strip()

    changed = len(git("status", "--porcelain").splitlines())
    return f"{git('rev-parse', '--short', 'HEAD')} ({changed} files changed in the work tree)"


def inherited() -> list[str]:
    """Names only: the values may be secrets. The bench sets ports, data dir, database and process counts."""
    return sorted(name for name in os.environ if name.startswith("LINEUP_"))


def header(options: Options, tool: str, why: str, started: datetime, seconds: float, load: float) -> list[str]:
    return [
        f"Lineup bench — {started:%Y-%m-%d %H:%M} UTC, {seconds:.0f} s, {'quick' if options.quick else 'full'}, "
        f"targets {','.join(sorted(options.only))}",
        f"machine: {os.cpu_count()} CPUs, load average {load:.2f} before the run (other work skews every figure); "
        f"{platform.python_implementation()} {platform.python_version()}",
        f"git {git_state()}; load generator: {tool} ({why})",
        f"LINEUP_* inherited from the environment (besides the bench's own): {', '.join(inherited()) or 'none'}",
        "stack: lineup db upgrade + seed-demo + lineup run (Temporal dev server with tuned dispatch, sandbox, "
        "worker, uvicorn), free ports, temporary data dir",
    ]


def model_facts() -> dict[str, Any]:
    """What the capacity model reads besides the figures: the settings defaults it scales by, and the connection
    pool each Lineup process opens on PostgreSQL (read from the engine Lineup makes, never connected)."""
    settings = Settings(_env_file=None, database_url="postgresql+asyncpg://bench@127.0.0.1:1/unused")
    engine = postgres_engine(settings.db_url, settings)
    pool = engine.pool
    assert isinstance(pool, QueuePool)
    return {
        "settings_defaults": {"port_poll_seconds": PortingSettings().poll_seconds},
        "pg_pool": {"size": pool.size(), "max_overflow": getattr(pool, "_max_overflow", None)},
    }


def write_capacity(document_path: Path) -> None:
    """docs/capacity.md and docs/performance.md's block of the latest run, from this run's JSON; a run without
    the figures they read leaves both as they were."""
    document = json.loads(document_path.read_text())
    try:
        text = capacity.generate(document, document_path.name)
        block = goals.run_block(document, document_path.name)
    except Drift as drift:
        print(f"bench: docs/capacity.md and docs/performance.md not written: {drift}", flush=True)
        return
    CAPACITY_DOC.write_text(text)
    replace_section(goals.PERFORMANCE_DOC, goals.MARKER, block)
    print(f"bench: docs/capacity.md and docs/performance.md's latest run written from {document_path.name}", flush=True)


def leave_nothing() -> None:
    """Kills every child, drops the bench's databases and removes its data dirs, whatever is left of them."""
    CHILDREN.kill_all()
    if postgres.CREATED:
        # Its own thread and loop: this also runs from a signal callback inside the bench's loop.
        dropping = threading.Thread(target=lambda: asyncio.run(postgres.drop_leftovers()))
        dropping.start()
        dropping.join(30)
    for directory in list(OPEN_DIRS):
        shutil.rmtree(directory, ignore_errors=True)


def stop_on_signals() -> None:
    """First Ctrl-C or SIGTERM: cancel the run, so every stack stops in order and its database is dropped.
    Second: kill every child at once and leave."""
    loop, task, received = asyncio.get_running_loop(), asyncio.current_task(), [0]

    def on_signal() -> None:
        received[0] += 1
        if received[0] == 1 and task is not None:
            print("bench: interrupted; stopping everything (again to kill at once)", flush=True)
            task.cancel()
            return
        leave_nothing()
        exit_now(130)

    for signum in (signal.SIGINT, signal.SIGTERM):
        # Also when the shell started the bench with SIGINT ignored (a background job).
        loop.add_signal_handler(signum, on_signal)


async def bench(options: Options) -> int:
    stop_on_signals()
    started, began, load = datetime.now(UTC), time.monotonic(), os.getloadavg()[0]
    tool, why = choose_tool(options.loadgen) if options.wants("T1", "T6") else ("python", "T1, T6 not selected")
    figures: list[Figure] = await run_plan(options, tool)
    figures.sort(key=lambda figure: figure.target)  # stable: each target's rows keep their measured order
    seconds = time.monotonic() - began
    text = table(figures, header(options, tool, why, started, seconds, load))
    print(text, flush=True)
    meta: dict[str, Any] = {
        "started_utc": started.isoformat(),
        "seconds": round(seconds, 1),
        "quick": options.quick,
        "targets": sorted(options.only),
        "load_generator": {"tool": tool, "why": why},
        "cpus": os.cpu_count(),
        "git": git_state(),
        "inherited_lineup_env": inherited(),
        "load_average_before": load,
        "load_average_after": os.getloadavg()[0],
        **model_facts(),
    }
    path = write_json(get_settings().data_dir / "bench", started, meta, figures, text)
    print(f"bench: written to {path}", flush=True)
    if options.capacity:
        write_capacity(path)
    return 1 if any(f.value is None and not f.note.startswith("not measured yet") for f in figures) else 0


def main() -> None:
    options = parse()
    code = 1
    try:
        code = asyncio.run(bench(options))
    except (KeyboardInterrupt, asyncio.CancelledError):
        code = 130
    finally:
        leave_nothing()  # whatever a stop in order missed
    exit_now(code)


if __name__ == "__main__":
    main()
