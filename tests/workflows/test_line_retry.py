"""LineWorkflow alone on the time-skipping server, its activities stand-ins under the real names. A line its
order left ACTIVE ends at once; one left ACTIVATING goes on with the same key; a stuck line tries its step again
by itself every LINEUP_STUCK_RETRY_MINUTES for LINEUP_STUCK_RETRY_HOURS (decisions.md's retry budget), then
waits for support; our own database away is waited for, never counted as the carrier's failure; a line waiting
for activation is activated by `activate` or handed over to its port."""

from __future__ import annotations

import secrets
from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest
from temporalio import activity
from temporalio.client import WorkflowUpdateFailedError, WorkflowUpdateStage
from temporalio.exceptions import ApplicationError
from temporalio.worker import Worker

from models.enrollment.lines import (
    Activation,
    CarrierCall,
    LineActivated,
    LinePlan,
    LineStart,
    LineState,
    LineStatus,
    Pacing,
    SimChange,
    StuckState,
)
from models.envelope import CARRIER_REJECTED, DATABASE_UNAVAILABLE, UNAVAILABLE
from workflows.enrollment import LineWorkflow

PACING = Pacing(carrier_max_attempts=1, stuck_retry_minutes=15, stuck_retry_hours=24)
MDN = "4045550178"


class Carrier:
    """Down for the first `outage` activation attempts (or our database is, with `database`), then up; counts
    the attempts and the statuses the workflow wrote."""

    def __init__(self, outage: int = 0, *, database: bool = False, refuse: bool = False) -> None:
        self.outage, self.database, self.refuse = outage, database, refuse
        self.calls: list[CarrierCall] = []
        self.statuses: list[str] = []
        self.sims: list[SimChange] = []

    def activities(self) -> list[Any]:
        @activity.defn(name="activate_and_record")
        async def activate_and_record(call: CarrierCall) -> LineActivated:
            self.calls.append(call)
            if len(self.calls) <= self.outage:
                if self.database:
                    raise ApplicationError("The database is unavailable", type=DATABASE_UNAVAILABLE)
                if self.refuse:
                    raise ApplicationError("915 SIM already in use", type=CARRIER_REJECTED, non_retryable=True)
                raise ApplicationError("The carrier is unavailable: HTTP 503", type=UNAVAILABLE)
            self.statuses.append("ACTIVE")
            return LineActivated(MDN, MDN, "123456")

        @activity.defn(name="set_line_status")
        async def set_line_status(state: LineState) -> None:
            self.statuses.append(state.status)

        @activity.defn(name="change_sim")
        async def change_sim(change: SimChange) -> None:
            self.sims.append(change)

        return [activate_and_record, set_line_status, change_sim]


def start(status: LineStatus = LineStatus.ACTIVATING, *, later: bool = False, **changes: Any) -> LineStart:
    plan = LinePlan("E1", "100000001", "100000001", "HANDOVER", "NEWACTIVATION", later, status=status)
    return LineStart(plan, "order-1", "E1", "DEMO", None, **{"pacing": PACING, **changes})


async def run_line(env, carrier: Carrier, first: LineStart | None = None):
    queue = f"line-{secrets.token_hex(4)}"
    worker = Worker(env.client, task_queue=queue, workflows=[LineWorkflow], activities=carrier.activities())
    handle = await env.client.start_workflow(LineWorkflow.run, first or start(), id=f"line-{queue}", task_queue=queue)
    return worker, handle


async def test_a_line_its_order_activated_ends_at_once_with_nothing_to_do(time_skipping):
    carrier = Carrier()
    active = start(LineStatus.ACTIVE)
    worker, handle = await run_line(time_skipping, carrier, replace(active, plan=replace(active.plan, mdn=MDN)))
    async with worker:
        progress = await handle.result()
    assert (progress.status, progress.mdn) == (LineStatus.ACTIVE, MDN)
    assert carrier.calls == [] and carrier.statuses == []


async def test_a_line_left_activating_activates_in_one_activity_with_the_orders_key(time_skipping):
    carrier = Carrier()
    worker, handle = await run_line(time_skipping, carrier)
    async with worker:
        progress = await handle.result()
    assert (progress.status, progress.mdn) == (LineStatus.ACTIVE, MDN)
    assert [call.idempotency_key for call in carrier.calls] == [f"{handle.id}:activate:0"]
    kinds = [event.WhichOneof("attributes") async for event in handle.fetch_history_events()]
    assert kinds.count("activity_task_scheduled_event_attributes") == 1
    assert kinds.count("marker_recorded_event_attributes") == 0  # the activity writes its own statuses
    assert kinds.count("upsert_workflow_search_attributes_event_attributes") == 1  # ACTIVE, with the MDN


async def test_a_stuck_line_retries_by_itself_and_activates_when_the_carrier_is_back(time_skipping):
    carrier = Carrier(outage=3)
    worker, handle = await run_line(time_skipping, carrier)
    began = await time_skipping.get_current_time()
    async with worker:
        progress = await handle.result()
    assert (progress.status, progress.mdn) == (LineStatus.ACTIVE, MDN)
    assert len(carrier.calls) == 4  # the first, then one every 15 minutes until the carrier answered
    assert carrier.statuses.count("STUCK") == 3
    assert {call.idempotency_key for call in carrier.calls} == {f"{handle.id}:activate:0"}  # an outage keeps its key
    assert await time_skipping.get_current_time() - began >= timedelta(minutes=45)


async def test_after_the_budget_a_stuck_line_waits_for_support(time_skipping):
    carrier = Carrier(outage=10_000)
    worker, handle = await run_line(time_skipping, carrier)
    async with worker:
        await time_skipping.sleep(timedelta(hours=30))
        within_budget = len(carrier.calls)
        await time_skipping.sleep(timedelta(hours=48))
        assert len(carrier.calls) == within_budget  # no retry by itself after 24 hours
        assert 24 * 4 <= within_budget <= 24 * 4 + 2  # every 15 minutes for a day
        carrier.outage = 0
        await handle.signal(LineWorkflow.retry)
        progress = await handle.result()
    assert progress.status == LineStatus.ACTIVE and len(carrier.calls) == within_budget + 1


async def test_a_line_its_order_saw_refused_starts_stuck_and_retries_with_a_new_key(time_skipping):
    carrier = Carrier()
    stuck = StuckState((await time_skipping.get_current_time()).isoformat(), 1, "915 SIM already in use")
    worker, handle = await run_line(time_skipping, carrier, start(LineStatus.STUCK, stuck=stuck))
    async with worker:
        await time_skipping.sleep(timedelta(minutes=1))
        assert carrier.calls == []  # it waits first: the same request would be refused again
        assert (await handle.query(LineWorkflow.status)).error == "915 SIM already in use"
        await handle.signal(LineWorkflow.retry)
        progress = await handle.result()
    assert progress.status == LineStatus.ACTIVE
    assert [call.idempotency_key for call in carrier.calls] == [f"{handle.id}:activate:1"]
    # Its order wrote STUCK and support's retry RETRYING; the step's own activity writes ACTIVE, nothing between.
    assert carrier.statuses == ["ACTIVE"]


async def test_a_refusal_bumps_the_key_for_the_corrected_request(time_skipping):
    carrier = Carrier(outage=1, refuse=True)
    worker, handle = await run_line(time_skipping, carrier)
    async with worker:
        await handle.signal(LineWorkflow.retry)
        progress = await handle.result()
    assert progress.status == LineStatus.ACTIVE
    assert [call.idempotency_key.rsplit(":", 1)[1] for call in carrier.calls] == ["0", "1"]


async def test_our_database_away_is_waited_for_and_never_makes_the_line_stuck(time_skipping):
    carrier = Carrier(outage=4, database=True)
    worker, handle = await run_line(time_skipping, carrier)
    async with worker:
        progress = await handle.result()
    assert progress.status == LineStatus.ACTIVE
    assert len(carrier.calls) == 5 and "STUCK" not in carrier.statuses  # not one carrier attempt spent on it


async def test_a_line_waiting_for_activation_is_activated_by_the_update_with_its_new_sim(time_skipping):
    carrier = Carrier()
    worker, handle = await run_line(time_skipping, carrier, start(LineStatus.WAITING_ACTIVATION, later=True))
    async with worker:
        await time_skipping.sleep(timedelta(days=3))
        assert carrier.calls == [] and carrier.statuses == []  # its customer record says WAITING_ACTIVATION
        # Accepted, then followed by the workflow's result (the test server forgets a finished run's updates).
        await handle.start_update(
            LineWorkflow.activate,
            Activation(30, iccid="8901260000000000007", zip_code="30301"),
            wait_for_stage=WorkflowUpdateStage.ACCEPTED,
        )
        progress = await handle.result()
    assert (progress.status, progress.mdn) == (LineStatus.ACTIVE, MDN)
    assert carrier.sims == [SimChange("E1", None, "8901260000000000007")]
    assert carrier.calls[0].zip_code == "30301"  # the new number's area


async def test_activation_of_a_line_that_is_not_waiting_is_refused_before_it_reaches_history(time_skipping):
    carrier = Carrier(outage=1)
    worker, handle = await run_line(time_skipping, carrier)
    async with worker:
        await time_skipping.sleep(timedelta(minutes=1))  # stuck now
        with pytest.raises(WorkflowUpdateFailedError) as refused:
            await handle.execute_update(LineWorkflow.activate, Activation(30))
        kinds = [event.WhichOneof("attributes") async for event in handle.fetch_history_events()]
    assert "Line is not waiting for activation (STUCK)" in str(refused.value.cause)
    assert "workflow_execution_update_accepted_event_attributes" not in kinds


async def test_a_line_handed_over_to_its_port_ends_and_refuses_activation(time_skipping):
    carrier = Carrier()
    worker, handle = await run_line(time_skipping, carrier, start(LineStatus.WAITING_ACTIVATION, later=True))
    async with worker:
        await handle.signal(LineWorkflow.hand_over)
        progress = await handle.result()
        described = await handle.describe()
    assert progress.status == LineStatus.PORT_PENDING and carrier.calls == []
    attributes = {pair.key.name: pair.value for pair in described.typed_search_attributes}
    assert (attributes["ActivationType"], attributes["LineStatus"]) == ("PORTIN", "PORT_PENDING")


async def test_a_long_stuck_line_continues_as_new_still_stuck_and_then_activates(time_skipping):
    carrier = Carrier(outage=60)
    pacing = replace(PACING, history_events=60)
    worker, handle = await run_line(time_skipping, carrier, start(pacing=pacing))
    async with worker:
        progress = await handle.result()
        first = time_skipping.client.get_workflow_handle(handle.id, run_id=handle.first_execution_run_id)
        first_run = [event.WhichOneof("attributes") async for event in first.fetch_history_events()]
    assert progress.status == LineStatus.ACTIVE and len(carrier.calls) == 61
    assert {call.idempotency_key for call in carrier.calls} == {f"{handle.id}:activate:0"}  # the same key across runs
    assert first_run[-1] == "workflow_execution_continued_as_new_event_attributes"
    assert len(first_run) <= 60 + 15  # it went on as new before its history grew past the limit
