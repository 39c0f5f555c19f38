"""`make bench`: create_customer_prepaid_multiline latency (1 and 10 lines, sandbox answering at once)
beside a bare update-with-start round trip of a no-op workflow on the same dev server, as ratios."""

from __future__ import annotations

import asyncio
import secrets
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from temporalio.client import WithStartWorkflowOperation
from temporalio.common import WorkflowIDConflictPolicy
from temporalio.worker import Worker

from bench.noop import NoopWorkflow
from tests.builders import create, line
from tests.support.databases import sqlite_template
from tests.support.stack import Stack
from tests.support.temporal import dev_server, sandbox_server

ROUNDS = {"baseline": 40, "create_1": 20, "create_10": 8}
WARMUP = 3


async def timed(call: Any, rounds: int) -> list[float]:
    samples = []
    for index in range(rounds + WARMUP):
        started = time.perf_counter()
        await call()
        if index >= WARMUP:
            samples.append((time.perf_counter() - started) * 1000)
    return samples


async def baseline(env: Any) -> list[float]:
    queue = f"bench-noop-{secrets.token_hex(3)}"
    async with Worker(env.client, task_queue=queue, workflows=[NoopWorkflow]):

        async def round_trip() -> None:
            start = WithStartWorkflowOperation(
                NoopWorkflow.run, id=f"noop-{secrets.token_hex(6)}", task_queue=queue,
                id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
            )  # fmt: skip
            await env.client.execute_update_with_start_workflow(NoopWorkflow.ping, start_workflow_operation=start)

        return await timed(round_trip, ROUNDS["baseline"])


async def creates(stack: Stack, lines: int, rounds: int) -> list[float]:
    async def one() -> None:
        ids = [await stack.new_enrollment_id() for _ in range(lines)]
        request = create(ids[0], *(line(i) for i in ids))
        token = await stack.token()
        started = time.perf_counter()
        answer = (await stack.post("/customer", request, token=token)).json()
        one.elapsed = (time.perf_counter() - started) * 1000  # type: ignore[attr-defined]
        assert answer["msg_code"] == "RESTAPI000" and all(e["data"]["mdn"] for e in answer["data"]), answer

    samples = []
    for index in range(rounds + WARMUP):
        await one()
        if index >= WARMUP:
            samples.append(one.elapsed)  # type: ignore[attr-defined]
    return samples


def report(name: str, samples: list[float], base: float) -> str:
    median = statistics.median(samples)
    return f"{name:<34} median {median:8.1f} ms   p90 {statistics.quantiles(samples, n=10)[-1]:8.1f} ms   ×{median / base:6.1f}"


async def main(work: Path, template: Path) -> None:
    try:
        data = work / "data"
        data.mkdir()
        shutil.copyfile(template, data / "lineup.db")
        async with dev_server() as env, sandbox_server(work) as sandbox:
            base = await baseline(env)
            async with Stack.running(data, f"sqlite+aiosqlite:///{data / 'lineup.db'}", env, sandbox) as stack:
                one = await creates(stack, 1, ROUNDS["create_1"])
                ten = await creates(stack, 10, ROUNDS["create_10"])
        reference = statistics.median(base)
        print("Lineup bench (Temporal dev server with tuned dispatch, sandbox answering at once, SQLite)")
        print(report("update-with-start, no-op workflow", base, reference))
        print(report("create, 1 line", one, reference))
        print(report("create, 10 lines", ten, reference))
        print("(×: ratio to the no-op update-with-start median measured in this run)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    directory = Path(tempfile.mkdtemp(prefix="lineup-bench-"))
    asyncio.run(main(directory, sqlite_template(directory)))  # the template migrates with its own loop
