"""Readiness: the database answers, Temporal answers, a worker polls the task queue and one of its workers wrote
its heartbeat within LINEUP_WORKER_STALE_SECONDS (a frozen worker stays a listed poller for a minute or more)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from sqlalchemy import text
from temporalio.api.enums.v1 import TaskQueueType
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest

from dispatch.context import Resources
from persistence.workers import last_beat

# A worker long-polls for about a minute; a poller seen within two is still there.
POLLER_FRESHNESS = timedelta(minutes=2)
CHECK_TIMEOUT = 3.0


async def readiness_problems(resources: Resources) -> list[str]:
    """What keeps the service from being ready; empty when it is."""
    found = await asyncio.gather(_database(resources), _worker(resources))
    return [problem for problems in found for problem in problems]


async def _database(resources: Resources) -> list[str]:
    try:
        async with resources.db.transaction() as session:
            await asyncio.wait_for(session.execute(text("SELECT 1")), CHECK_TIMEOUT)
    except Exception:  # noqa: BLE001 — any failure is "not reachable"; the reason stays in the logs
        return ["Database is not reachable"]
    return []


async def _worker(resources: Resources) -> list[str]:
    client = resources.temporal.connected
    if client is None:
        return ["Temporal is not reachable"]
    settings = resources.settings
    describe = DescribeTaskQueueRequest(
        namespace=settings.temporal.namespace,
        task_queue=TaskQueue(name=settings.temporal.task_queue),
        task_queue_type=TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    )
    try:
        reply = await client.workflow_service.describe_task_queue(describe, timeout=timedelta(seconds=CHECK_TIMEOUT))
    except Exception:  # noqa: BLE001
        return ["Temporal is not reachable"]
    now = datetime.now(UTC)
    fresh = [p for p in reply.pollers if now - p.last_access_time.ToDatetime(UTC) < POLLER_FRESHNESS]
    if not fresh:
        return [f"No worker is polling task queue {settings.temporal.task_queue}"]
    return await _heartbeat(resources)


async def _heartbeat(resources: Resources) -> list[str]:
    """A poller stays listed for a minute or more after its process froze (its last long poll); the worker's
    heartbeat row, written every few seconds from its event loop, says it still runs."""
    settings = resources.settings
    try:
        async with resources.db.transaction() as session:
            seen = await asyncio.wait_for(last_beat(session, settings.temporal.task_queue), CHECK_TIMEOUT)
    except Exception:  # noqa: BLE001 — the database check reports the outage
        return []
    stale = timedelta(seconds=settings.worker.stale_seconds)
    if seen is None or datetime.now(UTC) - seen > stale:
        queue, seconds = settings.temporal.task_queue, stale.total_seconds()
        return [f"No worker of task queue {queue} answered in the last {seconds:g} s"]
    return []
