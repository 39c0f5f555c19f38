"""Every call from the API to Temporal has a deadline (decisions.md's budgets): with no worker polling the
task queue, a channel hears "The workflow engine is unavailable" in time instead of waiting without end. The
deadlines are settings (LINEUP_LOOKUP_BUDGET_SECONDS, LINEUP_TEMPORAL_RPC_SECONDS, LINEUP_SYNC_WAIT_SECONDS),
set small here so that the test waits seconds, not the production 15."""

from __future__ import annotations

import asyncio
import gc
import logging
import secrets
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from temporalio.client import WithStartWorkflowOperation
from temporalio.common import WorkflowIDConflictPolicy

from api.temporal import started_anyway
from models.enrollment.actions import IN_PROGRESS
from tests.support.app import ApiClient, make_settings
from tests.support.builders import body, create, line

UNAVAILABLE = ["The workflow engine is unavailable, please try again later"]
BUDGET, RPC, SYNC_WAIT = 1.0, 1.0, 0.5
LOOKUP_SECONDS = BUDGET + RPC  # how long the API waits for a lookup: its budget and a round trip to Temporal


@pytest.fixture
async def unattended(data_dir: Path, sqlite_url: str, temporal_env: Any) -> AsyncIterator[ApiClient]:
    """The API with Temporal up but no worker on its task queue."""
    settings = make_settings(
        data_dir,
        sqlite_url,
        temporal_address=temporal_env.client.service_client.config.target_host,
        temporal_task_queue=f"nobody-{secrets.token_hex(4)}",
        sync_wait_seconds=SYNC_WAIT,
        lookup_budget_seconds=BUDGET,
        temporal_rpc_seconds=RPC,
    )
    async with ApiClient.running(settings, temporal=temporal_env.client) as api:
        yield api


async def test_a_lookup_with_no_worker_answers_unavailable_within_its_budget(unattended):
    started = time.monotonic()
    answer = await unattended.call("/inventory", body("check_device_compatibility"))
    elapsed = time.monotonic() - started
    assert (answer["msg_code"], answer["errors"]) == ("RESTAPI110", UNAVAILABLE)
    assert LOOKUP_SECONDS <= elapsed < LOOKUP_SECONDS + 3


async def test_customer_creation_with_no_worker_answers_in_progress_in_time(unattended):
    """The order's workflow is started (the worker will run it when it comes), so the answer is "in progress", not
    an outage (issue 35, item 10); and it comes within the wait's budget and one more round trip to ask Temporal."""
    issued = await unattended.call("/enrollment", body("check_service_availability"))
    enrollment_id = issued["data"]["enrollment_id"]
    started = time.monotonic()
    answer = await unattended.call("/customer", create(enrollment_id, line(enrollment_id)))
    assert [entry["msg"] for entry in answer["data"]] == [IN_PROGRESS], answer
    assert SYNC_WAIT <= time.monotonic() - started < SYNC_WAIT + LOOKUP_SECONDS + RPC + 3


async def test_the_error_a_cancelled_update_with_start_left_in_its_start_operation_is_read(caplog):
    """A create whose deadline cancels its update-with-start before a worker accepted it (as above) leaves a
    CancelledError in the start operation's own future; started_anyway reads it (through the operation's public
    workflow_handle()), or asyncio logs "Future exception was never retrieved" for each such create once the
    operation is collected."""

    async def left_by_a_cancelled_call(*, read: bool) -> None:
        start: WithStartWorkflowOperation[object, object] = WithStartWorkflowOperation(
            "EnrollmentWorkflow", id="E1", task_queue="q", id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING
        )
        # What the SDK does on a cancelled call; no public call leaves that state without a server that hangs.
        start._workflow_handle.set_exception(asyncio.CancelledError())  # noqa: SLF001
        if read:
            assert not await started_anyway(start)

    with caplog.at_level(logging.ERROR, logger="asyncio"):
        await left_by_a_cancelled_call(read=False)
        gc.collect()
        assert "Future exception was never retrieved" in caplog.text
        caplog.clear()
        await left_by_a_cancelled_call(read=True)
        gc.collect()
        assert caplog.records == []
