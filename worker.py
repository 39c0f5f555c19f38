"""The Temporal worker: builds settings, engine, adapters and activity objects, runs until SIGTERM."""

from __future__ import annotations

import asyncio
import logging
import signal
from datetime import timedelta
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from temporalio.client import Client
from temporalio.worker import Worker

from activities.registry import build_activities
from api.logs import configure_logging
from models.db import make_engine, session_factory
from models.settings import Settings, get_settings
from workflows.client import connect_until_up
from workflows.registry import WORKFLOWS

log = logging.getLogger("lineup.worker")


@asynccontextmanager
async def running_worker(settings: Settings, client: Client) -> AsyncIterator[Worker]:
    """A polling worker on the task queue; activities and their connections close with it."""
    engine = make_engine(settings)
    activities = build_activities(settings, session_factory(engine))
    worker = Worker(
        client,
        task_queue=settings.temporal_task_queue,
        workflows=WORKFLOWS,
        activities=activities.functions(),
        graceful_shutdown_timeout=timedelta(seconds=10),
    )
    try:
        async with worker:
            yield worker
    finally:
        await activities.close()
        await engine.dispose()


async def main() -> None:
    settings = get_settings()
    configure_logging(settings.log_level)
    client = await connect_until_up(settings)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    async with running_worker(settings, client):
        log.info("worker polling", extra={"fields": {"task_queue": settings.temporal_task_queue}})
        await stop.wait()
    log.info("worker stopped")


if __name__ == "__main__":
    asyncio.run(main())
