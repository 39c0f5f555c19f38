"""A busy machine does not restart the API (issue 35, finding 8). In the soak, each API process indexed the ZIP
data as it started, holding the GIL up to 6.9 s on the loaded machine; uvicorn's health check (5 s) killed the
starting processes 17 times, and the API ended on one process. Now the ZIP index is read in a millisecond, and
`lineup run` gives uvicorn LINEUP_API_WORKER_HEALTHCHECK_SECONDS (30 s) as its health-check timeout.

The API is started as `lineup run` starts it (its uvicorn command line, two processes) on one core that busy loops
share: one while the processes import the app, many more once they start serving (their lifespans, where the ZIP
data was loaded, and after). Each process must stay the one that came up. With the loading before this fix and
uvicorn's 5 s timeout, the load below killed a starting process (verified with the earlier models/address.py)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from bench.processes import ProcessId, command_line, descendants, parent_of
from cli.run import api_command
from models.address import load_zip_index
from models.settings import Settings
from tests.support.app import make_settings
from tests.support.keys import TEST_ENCRYPTION_KEY

REPO = Path(__file__).resolve().parents[2]
PROCESSES = 2
BUSY_WHILE_IMPORTING = 1
BUSY_WHILE_SERVING = 20  # a process sharing the core with them gets under 5 % of it
LOADED_SECONDS = 10.0  # past uvicorn's former 5 s timeout once the processes started serving
UP_WITHIN_SECONDS = 60.0
STARTED = "Started server process"
HEALTH_CHECK = "timeout_worker_healthcheck"


def wait_for(condition: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    return condition()


class Core:
    """One core of this machine that the API and the busy loops share; every process started here ends with the
    test."""

    def __init__(self) -> None:
        self.number = max(os.sched_getaffinity(0))
        self.processes: list[subprocess.Popen[bytes]] = []

    def start(self, command: list[str], **options: Any) -> subprocess.Popen[bytes]:
        pinned = self.number
        process = subprocess.Popen(command, preexec_fn=lambda: os.sched_setaffinity(0, {pinned}), **options)
        self.processes.append(process)
        return process

    def busy(self, count: int) -> None:
        for _ in range(count):
            self.start([sys.executable, "-c", "while True: pass"])

    def stop(self) -> None:
        below = [found for process in self.processes for found in descendants(process.pid)]
        for process in self.processes:
            process.kill()
            process.wait()
        for leftover in below:
            leftover.kill()


@pytest.fixture
def core() -> Iterator[Core]:
    shared = Core()
    yield shared
    shared.stop()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def serving_processes(master: subprocess.Popen[bytes]) -> set[ProcessId]:
    """uvicorn's worker processes: the master's children it spawned (not its resource tracker)."""
    return {
        found
        for found in descendants(master.pid)
        if parent_of(found.pid) == master.pid and "spawn_main" in " ".join(command_line(found.pid))
    }


def healthy(url: str) -> bool:
    try:
        return httpx.get(f"{url}/healthz", timeout=5).status_code == 200
    except httpx.HTTPError:
        return False


def restarted(log: Path) -> bool:
    """Whether uvicorn replaced a process (it says so when the health check killed it, or it died)."""
    return "died" in log.read_text()


def health_check_timeout(settings: Settings) -> object:
    """The health-check timeout uvicorn's own command line reads from `lineup run`'s arguments."""
    command = api_command(settings)
    return uvicorn.main.make_context("uvicorn", command[command.index("uvicorn") + 1 :]).params[HEALTH_CHECK]


def test_lineup_run_gives_uvicorn_the_health_check_timeout_setting(data_dir, sqlite_url):
    assert health_check_timeout(make_settings(data_dir, sqlite_url)) == 30
    assert health_check_timeout(make_settings(data_dir, sqlite_url, api_worker_healthcheck_seconds=90)) == 90


@pytest.mark.slow
def test_every_api_process_stays_up_through_a_start_under_cpu_load(data_dir, sqlite_url, core):
    port = free_port()
    settings = make_settings(data_dir, sqlite_url, api_port=port, api_processes=PROCESSES)
    env = {
        **os.environ,
        "LINEUP_DATA_DIR": str(data_dir),
        "LINEUP_DATABASE_URL": sqlite_url,
        "LINEUP_ENCRYPTION_KEY": TEST_ENCRYPTION_KEY,
        "LINEUP_TEMPORAL_ADDRESS": "127.0.0.1:1",  # not needed for /healthz
        "LINEUP_API_PORT": str(port),
    }
    load_zip_index(data_dir / "zips")  # as every start after the first (tests/api/test_zip_index.py: the first)
    log = data_dir / "api.log"
    core.busy(BUSY_WHILE_IMPORTING)
    with open(log, "wb") as output:
        master = core.start(api_command(settings), env=env, cwd=REPO, stdout=output, stderr=subprocess.STDOUT)

    # uvicorn says this once a process has imported the app, just before its lifespan starts.
    assert wait_for(lambda: log.read_text().count(STARTED) >= PROCESSES, UP_WITHIN_SECONDS), log.read_text()
    core.busy(BUSY_WHILE_SERVING)
    came_up = serving_processes(master)
    assert len(came_up) == PROCESSES, came_up
    loaded_until = time.monotonic() + LOADED_SECONDS

    url = f"http://127.0.0.1:{port}"
    assert wait_for(lambda: healthy(url) or restarted(log), UP_WITHIN_SECONDS), log.read_text()
    wait_for(lambda: restarted(log), loaded_until - time.monotonic())
    assert not restarted(log), log.read_text()
    assert master.poll() is None, log.read_text()
    assert serving_processes(master) == came_up, log.read_text()
    assert all(process.alive() for process in came_up)
    assert log.read_text().count(STARTED) == PROCESSES, log.read_text()
    assert healthy(url)
