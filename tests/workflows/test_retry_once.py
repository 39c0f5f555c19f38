"""Support's retry of a stuck line is taken once (issue 19, finding 4): one conditional write moves the line
from STUCK to RETRYING, so of 40 retries at once exactly one is accepted and its workflow hears one signal;
a limit of the workflow engine is reported as what it is, and leaves the line STUCK for the next retry."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.service import RPCError, RPCStatusCode

from api import support as retries
from tests.support.builders import body, create, line
from tests.support.lines import SUPPORT, stored_line, until_status

# One carrier attempt parks a line in STUCK; its own slow retry stays out of the way of the test.
PACED = {"carrier_max_attempts": 1, "sync_wait_seconds": 1, "stuck_retry_minutes": 600}


async def stuck_line(stack: Any) -> str:
    enrollment_id: str = await stack.new_enrollment_id()
    await stack.faults(fault_rate=1)
    try:
        created = await stack.call("/customer", create(enrollment_id, line(enrollment_id)))
        assert created["msg_code"] == "RESTAPI000", created
        await until_status(stack, enrollment_id, "STUCK")
    finally:
        await stack.faults(fault_rate=0)
    return enrollment_id


async def signals(stack: Any, enrollment_id: str) -> int:
    handle = stack.env.client.get_workflow_handle(f"line-{enrollment_id}")
    names = [EventType.Name(event.event_type) async for event in handle.fetch_history_events()]
    return names.count("EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED")


@pytest.mark.parametrize("settings_overrides", [PACED])
async def test_forty_retries_at_once_of_one_stuck_line_are_accepted_once(stack):
    enrollment_id = await stuck_line(stack)
    retry = body("retry_enrollment", enrollment_id=enrollment_id, **SUPPORT)
    answers = await asyncio.gather(*(stack.call("/ops", retry) for _ in range(40)))
    accepted = [answer for answer in answers if answer["msg_code"] == "RESTAPI000"]
    assert len(accepted) == 1, [answer.get("errors") for answer in answers]
    assert accepted[0]["data"] == {"enrollment_id": enrollment_id, "status": "RETRYING"}
    for refused in (answer for answer in answers if answer["msg_code"] != "RESTAPI000"):
        assert refused["errors"][0].startswith(f"Enrollment {enrollment_id} is "), refused  # being retried / not stuck
    await until_status(stack, enrollment_id, "ACTIVE")
    assert await signals(stack, enrollment_id) == 1


@pytest.mark.parametrize("settings_overrides", [PACED])
async def test_a_limit_of_the_workflow_engine_is_reported_as_such_and_the_line_stays_stuck(stack, monkeypatch):
    enrollment_id = await stuck_line(stack)

    async def over_the_limit(client: Any, line_id: str) -> None:
        raise RPCError("exceed maximum allowed signals", RPCStatusCode.FAILED_PRECONDITION, b"")

    monkeypatch.setattr(retries, "retry_line", over_the_limit)
    refused = await stack.call("/ops", body("retry_enrollment", enrollment_id=enrollment_id, **SUPPORT))
    assert refused["errors"] == [
        f"The workflow engine refused the retry of enrollment {enrollment_id}: exceed maximum allowed signals"
    ]
    assert (await stored_line(stack, enrollment_id)).status == "STUCK"  # the next retry may take it
    monkeypatch.undo()
    accepted = await stack.call("/ops", body("retry_enrollment", enrollment_id=enrollment_id, **SUPPORT))
    assert accepted["data"]["status"] == "RETRYING", accepted
    await until_status(stack, enrollment_id, "ACTIVE")


@pytest.mark.parametrize("settings_overrides", [PACED])
async def test_a_retry_that_cannot_reach_the_engine_leaves_the_line_stuck(stack, monkeypatch):
    enrollment_id = await stuck_line(stack)

    async def engine_away(client: Any, line_id: str) -> None:
        raise RPCError("connection refused", RPCStatusCode.UNAVAILABLE, b"")

    monkeypatch.setattr(retries, "retry_line", engine_away)
    refused = await stack.call("/ops", body("retry_enrollment", enrollment_id=enrollment_id, **SUPPORT))
    assert refused["errors"] == ["The workflow engine is unavailable, please try again later"]
    assert (await stored_line(stack, enrollment_id)).status == "STUCK"


@pytest.mark.parametrize(
    "settings_overrides",
    [{**PACED, "stuck_retry_minutes": 1 / 60, "line_history_events": 40}],  # its own retry every second
)
async def test_a_line_stuck_for_long_continues_as_new_and_support_still_retries_it(stack):
    enrollment_id: str = await stack.new_enrollment_id()
    handle = stack.env.client.get_workflow_handle(f"line-{enrollment_id}")
    await stack.faults(fault_rate=1)
    try:
        created = await stack.call("/customer", create(enrollment_id, line(enrollment_id)))
        assert created["msg_code"] == "RESTAPI000", created
        await until_status(stack, enrollment_id, "STUCK")
        first_run = (await handle.describe()).run_id
        deadline = asyncio.get_running_loop().time() + 30
        while (await handle.describe()).run_id == first_run:
            assert asyncio.get_running_loop().time() < deadline
            await asyncio.sleep(0.3)
    finally:
        await stack.faults(fault_rate=0)
    ended = [
        event
        async for event in stack.env.client.get_workflow_handle(handle.id, run_id=first_run).fetch_history_events()
    ]
    assert EventType.Name(ended[-1].event_type) == "EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW"
    assert len(ended) < 60  # it went on as new instead of growing
    await until_status(stack, enrollment_id, "STUCK")
    retried = await stack.call("/ops", body("retry_enrollment", enrollment_id=enrollment_id, **SUPPORT))
    # Its own retry (every second here) may take it first: then support's finds it no longer stuck.
    assert retried.get("data", {}).get("status") == "RETRYING" or "is not stuck" in retried["errors"][0], retried
    done = await until_status(stack, enrollment_id, "ACTIVE")
    assert done.mdn is not None
