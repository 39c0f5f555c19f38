"""`GET /healthz` (the process is up) and `GET /readyz` (database, Temporal and a worker are there)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from sqlalchemy import text
from temporalio.api.enums.v1 import TaskQueueType
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest

from api.deps import SessionsDep, SettingsDep
from models.envelope import Envelope, MsgCode
from models.settings import Settings

router = APIRouter(tags=["health"])

# A worker long-polls for about a minute; a poller seen within two is still there.
POLLER_FRESHNESS = timedelta(minutes=2)
CHECK_TIMEOUT = 3.0


@router.get("/healthz", response_model=Envelope)
async def healthz() -> JSONResponse:
    """The process is up."""
    return JSONResponse(Envelope(msg_code=MsgCode.SUCCESS, msg="OK").body())


@router.get("/readyz", response_model=Envelope)
async def readyz(request: Request, sessions: SessionsDep, settings: SettingsDep) -> JSONResponse:
    """Ready when the database answers, Temporal answers and a worker polls the task queue."""
    checks = {"database": _database(sessions), "temporal": _worker(request, settings)}
    results = dict(zip(checks, await asyncio.gather(*checks.values()), strict=True))
    problems = [problem for value in results.values() for problem in value if problem]
    if problems:
        body = Envelope(msg_code=MsgCode.ERROR, msg="Not ready", errors=problems).body()
        return JSONResponse(body, status_code=503)
    return JSONResponse(Envelope(msg_code=MsgCode.SUCCESS, msg="Ready").body())


async def _database(sessions: SessionsDep) -> list[str]:
    try:
        async with sessions() as session:
            await asyncio.wait_for(session.execute(text("SELECT 1")), CHECK_TIMEOUT)
    except Exception:  # noqa: BLE001 — any failure is "not reachable"; the reason stays in the logs
        return ["Database is not reachable"]
    return []


async def _worker(request: Request, settings: Settings) -> list[str]:
    client = request.app.state.temporal.client
    if client is None:
        return ["Temporal is not reachable"]
    describe = DescribeTaskQueueRequest(
        namespace=settings.temporal_namespace,
        task_queue=TaskQueue(name=settings.temporal_task_queue),
        task_queue_type=TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    )
    try:
        reply = await client.workflow_service.describe_task_queue(describe, timeout=timedelta(seconds=CHECK_TIMEOUT))
    except Exception:  # noqa: BLE001
        return ["Temporal is not reachable"]
    now = datetime.now(UTC)
    fresh = [p for p in reply.pollers if now - p.last_access_time.ToDatetime(UTC) < POLLER_FRESHNESS]
    return [] if fresh else [f"No worker is polling task queue {settings.temporal_task_queue}"]
