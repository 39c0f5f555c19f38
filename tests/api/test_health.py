"""GET /healthz and /readyz: the only routes that are not POST."""

from __future__ import annotations

import asyncio
import os
import signal
from dataclasses import replace
from typing import Any

import pytest

from models.db import Database
from tests.support.app import reconfigure
from tests.support.database_outage import UNREACHABLE_DB
from tests.support.waiting import eventually
from tests.support.worker_process import own_queue, worker_process


async def until_ready(stack, *, tries: int = 100) -> dict[str, Any]:
    """The worker's first poll may still be on its way when the test starts."""
    for _ in range(tries):
        response = await stack.http.get("/readyz")
        if response.status_code == 200:
            break
        await asyncio.sleep(0.1)
    answer: dict[str, Any] = response.json()
    return answer


async def test_healthz_answers_while_the_process_is_up(api):
    response = await api.http.get("/healthz")
    assert (response.status_code, response.json()) == (200, {"msg_code": "RESTAPI000", "msg": "OK"})


async def test_readyz_is_ready_with_database_temporal_and_a_polling_worker(stack):
    assert await until_ready(stack) == {"msg_code": "RESTAPI000", "msg": "Ready"}


async def test_readyz_turns_unready_when_the_database_is_gone(stack):
    assert (await until_ready(stack))["msg"] == "Ready"
    resources = stack.app.state.resources
    unreachable = Database(resources.settings, UNREACHABLE_DB)
    stack.app.state.resources = replace(resources, db=unreachable)
    try:
        response = await stack.http.get("/readyz")
    finally:
        stack.app.state.resources = resources
        await unreachable.dispose()
    assert response.status_code == 503
    assert response.json() == {"msg_code": "RESTAPI110", "msg": "Not ready", "errors": ["Database is not reachable"]}


async def test_readyz_without_temporal_or_worker_is_unready(api):
    response = await api.http.get("/readyz")
    assert response.status_code == 503
    assert response.json()["errors"] == ["Temporal is not reachable"]


async def test_readyz_without_a_worker_on_the_queue_is_unready(stack):
    reconfigure(stack.app, temporal_task_queue="nobody-polls-this-queue")
    response = await stack.http.get("/readyz")
    assert response.json()["errors"] == ["No worker is polling task queue nobody-polls-this-queue"]


@pytest.fixture
async def postgres_stack(data_dir, postgres_url, temporal_env, sandbox_url, sandbox_smtp_port, settings_overrides):
    """The stack on PostgreSQL: on SQLite a worker stopped inside one of its write transactions holds the file's
    lock, and /readyz then rightly says the database cannot be used, whatever the heartbeat says."""
    from tests.support.stack import Stack

    overrides = {"smtp_port": sandbox_smtp_port, **settings_overrides}
    async with Stack.running(data_dir, postgres_url, temporal_env, sandbox_url, **overrides) as running:
        yield running


@pytest.mark.parametrize("settings_overrides", [{"worker_stale_seconds": 1.5}])
async def test_readyz_turns_unready_while_the_only_worker_is_frozen(postgres_stack):
    """Issue 19, finding 13: a stopped (SIGSTOP) worker stays a listed poller for a minute or more; its heartbeat
    stops at once, and /readyz says so until the worker runs again."""
    stack = postgres_stack
    own_queue(stack, "frozen")
    queue = stack.app.state.settings.temporal.task_queue
    with worker_process(stack) as process:
        assert (await until_ready(stack, tries=600))["msg"] == "Ready"  # the process starts and polls
        os.kill(process.pid, signal.SIGSTOP)
        try:  # its heartbeat, 1.5 s old at most when it froze, goes stale

            async def readyz() -> tuple[int, dict[str, object]]:  # a failure shows the whole answer
                response = await stack.http.get("/readyz")
                return response.status_code, response.json()

            frozen = await eventually(
                readyz,
                lambda found: found[0] == 503 and "answered in the last" in str(found[1]),
                what="/readyz unready for the frozen worker",
                within=60,  # a loaded machine's checks take longer; the heartbeat is stale after 1.5 s regardless
            )
        finally:
            os.kill(process.pid, signal.SIGCONT)
        assert frozen[1]["errors"] == [f"No worker of task queue {queue} answered in the last 1.5 s"]
        assert (await until_ready(stack))["msg"] == "Ready"  # thawed, it beats again
