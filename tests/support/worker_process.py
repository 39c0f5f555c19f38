"""A worker in its own process, for the tests that kill one mid-work: the stack's in-process worker is moved
off the queue those tests use, so only the processes started here work it."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tests.support.app import reconfigure
from tests.support.keys import TEST_ENCRYPTION_KEY


def own_queue(stack: Any, prefix: str) -> None:
    """The stack's API sends work to a queue of this test's own, which only worker processes poll."""
    queue = stack.app.state.settings.temporal.task_queue
    reconfigure(stack.app, temporal_task_queue=f"{prefix}-{queue}")


def start_worker(stack: Any) -> subprocess.Popen[bytes]:
    settings = stack.app.state.settings
    env = {
        **os.environ,
        "LINEUP_DATABASE_URL": settings.db_url,
        "LINEUP_DATA_DIR": str(settings.data_dir),
        "LINEUP_TEMPORAL_ADDRESS": settings.temporal.address,
        "LINEUP_TEMPORAL_TASK_QUEUE": settings.temporal.task_queue,
        "LINEUP_CARRIER_BASE_URL": settings.systems.carrier_url,
        "LINEUP_LOG_LEVEL": "WARNING",
        "LINEUP_ENCRYPTION_KEY": TEST_ENCRYPTION_KEY,
        "LINEUP_WORKER_STALE_SECONDS": str(settings.worker.stale_seconds),
        "LINEUP_WORKER_METRICS_PORT": "0",
    }
    return subprocess.Popen([sys.executable, "-m", "worker"], env=env)


@contextmanager
def worker_process(stack: Any) -> Iterator[subprocess.Popen[bytes]]:
    """A worker process for the block; stopped in order at its end if the block did not kill it."""
    process = start_worker(stack)
    try:
        yield process
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def kill(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL, as a crash: nothing of the worker's shutdown runs."""
    process.kill()
    process.wait()
