"""Readiness: the database answers, Temporal answers and a worker polls the task queue."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from sqlalchemy import text
from temporalio.api.enums.v1 import TaskQueueType
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest

from services.context import Resources

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
    return [] if fresh else [f"No worker is polling task queue {settings.temporal.task_queue}"]
