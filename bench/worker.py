"""`python -m bench.worker ADDRESS TASK_QUEUE`: the baselines' worker, in its own process like Lineup's."""

from __future__ import annotations

import asyncio
import signal
import sys

from temporalio.client import Client
from temporalio.worker import Worker

from bench.noop import FanOutWorkflow, NoopWorkflow, OneActivityWorkflow, trivial
from bench.processes import exit_now


async def serve(address: str, task_queue: str) -> None:
    client = await Client.connect(address)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    workflows = [NoopWorkflow, OneActivityWorkflow, FanOutWorkflow]
    worker = Worker(client, task_queue=task_queue, workflows=workflows, activities=[trivial])
    async with worker:
        print("bench worker polling", flush=True)
        await stop.wait()


if __name__ == "__main__":
    asyncio.run(serve(sys.argv[1], sys.argv[2]))
    exit_now(0)
