"""A create whose order's workflow has taken it is never answered as an outage (issue 35, item 10): a worker or the
database away during the wait answers "Customer created; activation in progress" with the lines' records, for
the order goes on; a channel that stops at an "unavailable" would believe a paid order failed."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import exc as sql
from temporalio.client import WorkflowExecutionStatus

import api.enrollment
from models.enrollment.actions import IN_PROGRESS
from tests.support.app import ApiClient, make_settings
from tests.support.builders import create, line
from tests.support.stack import Stack
from workflows.enrollment import enrollment_workflow_id

# The wait's budget kept short: sync wait + lookup budget + one RPC deadline.
QUICK = {"sync_wait_seconds": 1.0, "lookup_budget_seconds": 1.0, "temporal_rpc_seconds": 2.0}


@pytest.fixture
async def no_worker(data_dir: Path, sqlite_url: str, temporal_env: Any) -> AsyncIterator[ApiClient]:
    """The API on Temporal, its task queue without a worker: as while the only worker restarts."""
    settings = make_settings(
        data_dir,
        sqlite_url,
        temporal_address=temporal_env.client.service_client.config.target_host,
        temporal_task_queue=f"lineup-test-{secrets.token_hex(4)}",
        **QUICK,
    )
    async with ApiClient.running(settings, temporal=temporal_env.client) as api:
        yield api


async def enrollment_id(api: ApiClient) -> str:
    return await Stack.new_enrollment_id(api)  # type: ignore[arg-type]  # needs only `call`


async def test_create_taken_while_no_worker_runs_answers_in_progress(no_worker):
    eid = await enrollment_id(no_worker)
    answer = await no_worker.call("/customer", create(eid, line(eid)))
    assert answer["msg_code"] == "RESTAPI000", answer
    [entry] = answer["data"]
    assert (entry["msg_code"], entry["msg"], entry["data"]["enrollment_id"]) == ("RESTAPI000", IN_PROGRESS, eid)
    assert len(entry["data"]["pin"]) == 4
    # The order is there for the worker when it comes back.
    order = no_worker.app.state.resources.temporal.client().get_workflow_handle(enrollment_workflow_id(eid, [eid]))
    assert (await order.describe()).status == WorkflowExecutionStatus.RUNNING


async def test_create_taken_while_the_database_is_away_answers_from_intake(no_worker, monkeypatch):
    """The worker away and, when the create reads its lines (and an eSIM line's profile) back, the database away
    too: the lines as intake stored them, with the PINs it gave."""

    async def database_gone(*_args: Any, **_kwargs: Any) -> None:
        raise sql.OperationalError("SELECT", {}, OSError("connection lost"), connection_invalidated=True)

    monkeypatch.setattr(api.enrollment, "lines_of_order", database_gone)
    monkeypatch.setattr(api.enrollment, "line_extras", database_gone)
    eid = await enrollment_id(no_worker)
    answer = await no_worker.call("/customer", create(eid, line(eid, is_esim="Y")))
    assert answer["msg_code"] == "RESTAPI000", answer
    assert [(entry["msg"], entry["data"]["enrollment_id"]) for entry in answer["data"]] == [(IN_PROGRESS, eid)]


async def test_create_not_taken_is_still_answered_unavailable(data_dir, sqlite_url):
    """No workflow engine at all: nothing took the order (the sweep starts it later), and the answer says so."""
    async with ApiClient.running(make_settings(data_dir, sqlite_url, **QUICK)) as api:
        eid = await enrollment_id(api)
        answer = await api.call("/customer", create(eid, line(eid)))
    assert {key: answer[key] for key in ("msg_code", "msg", "errors")} == {
        "msg_code": "RESTAPI110",
        "msg": "Error occurred",
        "errors": ["The workflow engine is unavailable, please try again later"],
    }
