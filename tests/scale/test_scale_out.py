"""Scale-out (issue 13): what `make run` runs — `lineup db upgrade`, `lineup seed-demo`, `lineup run` — with
LINEUP_API_PROCESSES=2 and LINEUP_WORKER_PROCESSES=2, on a fresh PostgreSQL database, one Temporal dev server
and the sandbox, all on free ports. 50 channels enroll one customer each, all at once: no duplicate, no lost
line, and each of the four processes did part of the work. The stack and the checks are the bench's T7."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from prometheus_client.multiprocess import MultiProcessCollector

from bench import postgres
from bench.client import Channel, http_client
from bench.processes import CHILDREN, descendants
from bench.scale_out import anomalies, run_batch
from bench.stack import Stack, StackSpec, running
from bench.stack_processes import each_worker_counters
from tests.support.databases import PG_ADMIN_DB, PG_HOST, PG_PORT, PG_USER

ENROLLMENTS = 50
RETRIES = 2  # a create answered "please try again later" (Temporal slow on a busy machine) is sent again
SPEC = StackSpec("postgresql", api_processes=2, worker_processes=2)
ADMIN_URL = f"postgresql://{PG_USER}@{PG_HOST}:{PG_PORT}/{PG_ADMIN_DB}"
PORTS = ("LINEUP_API_PORT", "LINEUP_TEMPORAL_ADDRESS", "LINEUP_SANDBOX_PORT", "LINEUP_SANDBOX_SMTP_PORT")


@pytest.fixture(autouse=True)
async def _leave_nothing(postgres_url: str) -> AsyncIterator[None]:
    """`postgres_url` is asked for as by every test that makes its own database: without PostgreSQL the test
    skips, or fails under CI. Afterwards nothing of the stack survives, however the test ended."""
    yield
    CHILDREN.kill_all()  # what a stop in order missed, e.g. after a start that failed half-way
    await postgres.drop_leftovers()


def requests_by_api_process(metrics_dir: Path) -> dict[int, int]:
    """Operation calls each API process answered, by pid: every process of the shared
    PROMETHEUS_MULTIPROC_DIR writes its counters to a file of its own, `counter_<pid>.db`."""
    served: dict[int, int] = {}
    for path in metrics_dir.glob("counter_*.db"):
        families = MultiProcessCollector.merge([str(path)])
        answered = (s.value for f in families if f.name == "lineup_requests" for s in f.samples)
        served[int(path.stem.removeprefix("counter_"))] = int(sum(answered))
    return served


def listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    return True


def stack_ports(stack: Stack) -> list[int]:
    ports = [int(stack.env[name].rsplit(":", 1)[-1]) for name in PORTS]
    base = int(stack.env["LINEUP_WORKER_METRICS_PORT"])
    return [*ports, *(base + offset for offset in range(SPEC.worker_processes))]


@pytest.mark.slow  # about 45 s: four processes started, 50 enrollments, then every process stopped
async def test_two_api_processes_and_two_workers_enroll_50_customers_at_once_without_duplicate_or_loss() -> None:
    async with running(SPEC, ADMIN_URL) as stack:
        assert stack.process is not None
        # A connection per call: 50 kept-alive connections opened in one burst could all be accepted by one
        # process (asyncio accepts every pending connection of a wakeup), and the split is part of the proof.
        async with http_client(stack.api_url, ENROLLMENTS, keep_alive=False) as http:
            # Each channel authenticates, then chains its tokens: availability, then a 1-line create.
            batch = await run_batch([Channel(http) for _ in range(ENROLLMENTS)], ENROLLMENTS, RETRIES)
        assert batch.failures == [], batch.retried
        assert len(set(batch.ids)) == ENROLLMENTS
        # Waits until every line is ACTIVE; counts lines, MDNs and customers in PostgreSQL and the carrier's lines.
        found = await anomalies(stack, batch, ENROLLMENTS)
        assert found == dict.fromkeys(found, 0)

        # Both API processes `lineup run` started answered calls (they share one socket)…
        served = requests_by_api_process(stack.data_dir / "metrics")
        assert len(served) == SPEC.api_processes, served
        assert set(served) <= {process.pid for process in descendants(stack.process.pid)}
        assert min(served.values()) > 0, served
        # …and both workers ran activities (each serves its SDK metrics on a port of its own).
        workers = await each_worker_counters(stack)
        assert workers is not None and len(workers) == SPEC.worker_processes
        assert min(counters["activities"] for counters in workers) > 0, workers
        ports = stack_ports(stack)

    assert [process.pid for process in CHILDREN.known if process.alive()] == []
    assert [port for port in ports if listening(port)] == []
