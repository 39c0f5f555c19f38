"""The Temporal baselines, on the stack's own server: a no-op update-with-start round trip, a bare
one-activity workflow round trip, a parent running N bare one-activity children together, and bare
one-activity workflows completed per second."""

from __future__ import annotations

import asyncio
import secrets
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from temporalio.client import Client, WithStartWorkflowOperation
from temporalio.common import WorkflowIDConflictPolicy

from bench.noop import FanOutWorkflow, NoopWorkflow, OneActivityWorkflow
from bench.processes import CHILDREN, terminate
from bench.stack import REPO
from bench.stats import Rounds, Window, rate_window, timed, timed_rounds

READY_TIMEOUT_SECONDS = 30.0


@asynccontextmanager
async def bench_workers(client: Client, count: int, log_dir: Path) -> AsyncIterator[str]:
    """`count` worker processes (as many as Lineup runs) for the baseline workflows on a fresh task queue."""
    queue = f"bench-{secrets.token_hex(4)}"
    address = client.service_client.config.target_host
    command = [sys.executable, "-m", "bench.worker", address, queue]
    processes = [CHILDREN.spawn(command, log=log_dir / f"bench-worker-{n}.log", cwd=REPO) for n in range(count)]
    try:
        # A first workflow that completes proves a worker polls the queue.
        await asyncio.wait_for(one_activity(client, queue), READY_TIMEOUT_SECONDS)
        yield queue
    finally:
        for process in processes:
            await asyncio.to_thread(terminate, process, 15.0)


async def update_with_start(client: Client, queue: str) -> bool:
    start = WithStartWorkflowOperation(
        NoopWorkflow.run,
        id=f"bench-noop-{secrets.token_hex(6)}",
        task_queue=queue,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
    )
    answer = await client.execute_update_with_start_workflow(NoopWorkflow.ping, start_workflow_operation=start)
    return answer == "pong"


async def one_activity(client: Client, queue: str) -> bool:
    value = secrets.token_hex(4)
    answer = await client.execute_workflow(
        OneActivityWorkflow.run, value, id=f"bench-one-{secrets.token_hex(6)}", task_queue=queue
    )
    return answer == value


async def fan_out(client: Client, queue: str, children: int) -> bool:
    done = await client.execute_workflow(
        FanOutWorkflow.run, children, id=f"bench-fan-{secrets.token_hex(6)}", task_queue=queue
    )
    return done == children


async def fan_out_rounds(client: Client, queue: str, children: int, rounds: int, warmup: int) -> Rounds:
    return await timed_rounds(lambda: timed(lambda: fan_out(client, queue, children)), rounds, warmup)


async def update_with_start_rounds(client: Client, queue: str, rounds: int, warmup: int) -> Rounds:
    return await timed_rounds(lambda: timed(lambda: update_with_start(client, queue)), rounds, warmup)


async def one_activity_rounds(client: Client, queue: str, rounds: int, warmup: int) -> Rounds:
    return await timed_rounds(lambda: timed(lambda: one_activity(client, queue)), rounds, warmup)


async def one_activity_rate(client: Client, queue: str, callers: int, warmup: float, seconds: float) -> Window:
    return await rate_window([lambda: one_activity(client, queue)] * callers, warmup, seconds)
