"""The Temporal worker (`python -m worker`): builds settings, engine, adapters and activity objects, polls the task
queue until SIGINT or SIGTERM, then shuts down gracefully."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import socket
from collections.abc import AsyncIterator
from datetime import timedelta

from temporalio.client import Client
from temporalio.worker import Worker

from activities.registry import OutageInterceptor, built_activities
from api.temporal import connect_until_up, ensure_dispatch, ensure_registered, ensure_sweep_schedule
from models import support
from models.db import Database
from models.observability import configure_logging, temporal_runtime
from models.settings import Settings, get_settings
from workflows.policies import STICKY_QUEUE_TIMEOUT
from workflows.registry import WORKFLOWS

log = logging.getLogger("lineup.worker")


async def main() -> None:
    settings = get_settings()
    configure_logging(settings.observability.log_level)
    stop = asyncio.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        asyncio.get_running_loop().add_signal_handler(signum, stop.set)
    await serve(settings, stop)


async def serve(settings: Settings, stop: asyncio.Event) -> None:
    """Connects (with the SDK's metrics endpoint when LINEUP_WORKER_METRICS_PORT is not 0) and polls until `stop`."""
    # The runtime must exist before the client: the SDK's metrics are those of the runtime a client uses.
    client = await connect_until_up(settings, runtime=temporal_runtime(settings.worker.metrics_port))
    await ensure_registered(client, settings.temporal.namespace)
    await ensure_sweep_schedule(client, settings)
    async with running_worker(settings, client):
        log.info("worker polling", extra={"fields": {"task_queue": settings.temporal.task_queue}})
        await stop.wait()
    log.info("worker stopped")


@contextlib.asynccontextmanager
async def running_worker(settings: Settings, client: Client) -> AsyncIterator[Worker]:
    """A polling worker on the task queue; activities and their connections close with it."""
    db = Database(settings)
    try:
        async with built_activities(settings, db) as activities:
            worker = Worker(
                client,
                task_queue=settings.temporal.task_queue,
                workflows=WORKFLOWS,
                activities=activities,
                interceptors=[OutageInterceptor()],  # the database away: waited out, one line, no attempt spent
                graceful_shutdown_timeout=timedelta(seconds=10),
                sticky_queue_schedule_to_start_timeout=STICKY_QUEUE_TIMEOUT,
                max_cached_workflows=settings.worker.cached_workflows,
            )
            async with worker, _heartbeating(settings, db):
                await ensure_dispatch(client, settings)  # the event log's webhooks go out while a worker runs
                yield worker
    finally:
        await db.dispose()


@contextlib.asynccontextmanager
async def _heartbeating(settings: Settings, db: Database) -> AsyncIterator[None]:
    """Keeps this worker's heartbeat row fresh (every third of LINEUP_WORKER_STALE_SECONDS) so /readyz knows it is
    alive: written from the workflows' and activities' loop, it stops when the process freezes or that loop blocks.
    A clean stop removes the row."""
    identity = f"{os.getpid()}@{socket.gethostname()}:{settings.temporal.task_queue}"[:200]

    async def beating() -> None:
        while True:
            try:
                await support.beat(db, identity, settings.temporal.task_queue)
            except Exception as exc:  # noqa: BLE001 — a database outage: readiness reports it; keep beating
                log.warning("worker heartbeat not written", extra={"fields": {"error": type(exc).__name__}})
            await asyncio.sleep(settings.worker.stale_seconds / 3)

    task = asyncio.create_task(beating())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        with contextlib.suppress(Exception):  # the row goes stale by itself if this cannot be written
            await support.stopped(db, identity)


if __name__ == "__main__":
    asyncio.run(main())
