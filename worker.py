"""The Temporal worker: builds settings, engine, adapters and activity objects, runs until SIGTERM."""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta

from temporalio.client import Client
from temporalio.worker import Worker

from activities.registry import build_activities
from models.settings import Settings, get_settings
from observability.logs import configure_logging
from observability.metrics import temporal_runtime
from persistence.engine import Database
from workflows.client import connect_until_up
from workflows.policies import STICKY_QUEUE_TIMEOUT
from workflows.registry import WORKFLOWS
from workflows.support import ensure_sweep_schedule

log = logging.getLogger("lineup.worker")


@asynccontextmanager
async def running_worker(settings: Settings, client: Client) -> AsyncIterator[Worker]:
    """A polling worker on the task queue; activities and their connections close with it."""
    db = Database.open(settings)
    activities = build_activities(settings, db)
    worker = Worker(
        client,
        task_queue=settings.temporal.task_queue,
        workflows=WORKFLOWS,
        activities=activities.functions(),
        graceful_shutdown_timeout=timedelta(seconds=10),
        sticky_queue_schedule_to_start_timeout=STICKY_QUEUE_TIMEOUT,
    )
    try:
        async with worker:
            yield worker
    finally:
        await activities.close()
        await db.dispose()


async def serve(settings: Settings, stop: asyncio.Event) -> None:
    """Connects (with the SDK's metrics endpoint when LINEUP_WORKER_METRICS_PORT is not 0) and polls until `stop`."""
    # The runtime must exist before the client: the SDK's metrics are those of the runtime a client uses.
    client = await connect_until_up(settings, runtime=temporal_runtime(settings.worker.metrics_port))
    await ensure_sweep_schedule(client, settings)
    async with running_worker(settings, client):
        log.info("worker polling", extra={"fields": {"task_queue": settings.temporal.task_queue}})
        await stop.wait()
    log.info("worker stopped")


async def main() -> None:
    settings = get_settings()
    configure_logging(settings.observability.log_level)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    await serve(settings, stop)


if __name__ == "__main__":
    asyncio.run(main())
