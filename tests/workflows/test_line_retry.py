"""A stuck line tries its step again by itself every LINEUP_STUCK_RETRY_MINUTES for
LINEUP_STUCK_RETRY_HOURS (decisions.md's retry budget), then waits for support; LineWorkflow on the
time-skipping server with stand-in activities under the real names."""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any

from temporalio import activity
from temporalio.exceptions import ApplicationError
from temporalio.worker import Worker

from models.messages.enrollment import (
    ActivationRecord,
    CarrierCall,
    LineActivated,
    LinePlan,
    LineStart,
    LineState,
    Pacing,
)
from workflows.enrollment.line import LineWorkflow

PACING = Pacing(carrier_max_attempts=1, stuck_retry_minutes=15, stuck_retry_hours=24)


class Carrier:
    """Down for the first `outage` activation attempts, then up; counts the attempts."""

    def __init__(self, outage: int) -> None:
        self.outage, self.attempts = outage, 0
        self.statuses: list[str] = []

    def activities(self) -> list[Any]:
        @activity.defn(name="activate_line")
        async def activate_line(call: CarrierCall) -> LineActivated:
            self.attempts += 1
            if self.attempts <= self.outage:
                raise ApplicationError("The carrier is unavailable: HTTP 503", type="Unavailable")
            return LineActivated("4045550178", "4045550178", "123456")

        @activity.defn(name="activate_and_record")
        async def activate_and_record(call: CarrierCall) -> LineActivated:
            self.statuses.append("ACTIVATING")  # the one activity writes it, then the activation's record
            activated = await activate_line(call)
            self.statuses.append("ACTIVE")
            return activated

        @activity.defn(name="set_line_status")
        async def set_line_status(state: LineState) -> None:
            self.statuses.append(state.status)

        @activity.defn(name="record_activation")
        async def record_activation(record: ActivationRecord) -> None:
            self.statuses.append("ACTIVE")

        return [activate_line, activate_and_record, set_line_status, record_activation]


def start(*, one_step: bool = False) -> LineStart:
    plan = LinePlan("E1", "100000001", "100000001", "HANDOVER", "NEWACTIVATION", False)
    return LineStart(plan, "order-1", "E1", "DEMO", None, PACING, one_step=one_step)


async def run_line(env, carrier: Carrier, *, one_step: bool = False):
    queue = f"line-retry-{secrets.token_hex(4)}"
    worker = Worker(env.client, task_queue=queue, workflows=[LineWorkflow], activities=carrier.activities())
    first = start(one_step=one_step)
    handle = await env.client.start_workflow(LineWorkflow.run, first, id=f"line-{queue}", task_queue=queue)
    return worker, handle


async def test_a_new_line_activates_in_one_activity_with_one_search_attribute_upsert(time_skipping):
    carrier = Carrier(outage=0)
    worker, handle = await run_line(time_skipping, carrier, one_step=True)
    async with worker:
        progress = await handle.result()
    assert (progress.status, progress.mdn) == ("ACTIVE", "4045550178")
    assert carrier.statuses == ["ACTIVATING", "ACTIVE"]  # no local activity of its own
    events = [event async for event in handle.fetch_history_events()]
    kinds = [event.WhichOneof("attributes") for event in events]
    assert kinds.count("activity_task_scheduled_event_attributes") == 1
    assert kinds.count("marker_recorded_event_attributes") == 0
    assert kinds.count("upsert_workflow_search_attributes_event_attributes") == 1  # ACTIVE, with the MDN


async def test_a_new_line_stuck_in_its_one_activity_retries_and_activates(time_skipping):
    carrier = Carrier(outage=2)
    worker, handle = await run_line(time_skipping, carrier, one_step=True)
    async with worker:
        progress = await handle.result()
    assert progress.status == "ACTIVE" and carrier.attempts == 3
    assert carrier.statuses.count("STUCK") == 2 and carrier.statuses[-1] == "ACTIVE"


async def test_a_stuck_line_retries_by_itself_and_activates_when_the_carrier_is_back(time_skipping):
    carrier = Carrier(outage=3)
    worker, handle = await run_line(time_skipping, carrier)
    began = await time_skipping.get_current_time()
    async with worker:
        progress = await handle.result()
    assert (progress.status, progress.mdn) == ("ACTIVE", "4045550178")
    assert carrier.attempts == 4  # the first, then one every 15 minutes until the carrier answered
    assert carrier.statuses.count("STUCK") == 3
    assert await time_skipping.get_current_time() - began >= timedelta(minutes=45)


async def test_after_the_budget_a_stuck_line_waits_for_support(time_skipping):
    carrier = Carrier(outage=10_000)
    worker, handle = await run_line(time_skipping, carrier)
    async with worker:
        await time_skipping.sleep(timedelta(hours=30))
        within_budget = carrier.attempts
        await time_skipping.sleep(timedelta(hours=48))
        assert carrier.attempts == within_budget  # no retry by itself after 24 hours
        assert 24 * 4 <= within_budget <= 24 * 4 + 2  # every 15 minutes for a day
        carrier.outage = 0
        await handle.signal(LineWorkflow.retry)
        progress = await handle.result()
    assert progress.status == "ACTIVE" and carrier.attempts == within_budget + 1
