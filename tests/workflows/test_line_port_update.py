"""LineWorkflow's changes on their own, on the time-skipping server with stand-in activities under the real
names: the `port_in` update (create_portin_v2…) of a line waiting for activation, refused by its validator
before anything reaches history otherwise; and a stuck line that continues as new, still stuck, before its
history grows large, then activates on support's retry."""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any

import pytest
from temporalio import activity
from temporalio.api.enums.v1 import EventType
from temporalio.client import WorkflowUpdateFailedError
from temporalio.common import SearchAttributePair, TypedSearchAttributes
from temporalio.exceptions import ApplicationError
from temporalio.worker import Worker

from models.messages.enrollment import (
    Activation,
    ActivationRecord,
    CarrierCall,
    LineActivated,
    LinePlan,
    LineStart,
    LineState,
    Pacing,
    PortRecord,
    PortSubmitted,
)
from models.messages.porting import PortPoll, PortRequest, PortView, PortWatchPoll
from workflows.enrollment.line import LineWorkflow
from workflows.porting import PortStatusWorkflow
from workflows.search_attributes import ACTIVATION_TYPE, LINE_STATUS

NUMBER = "4045550142"


class Carrier:
    """The carrier and the store as the line's workflow sees them; `outage` activation attempts fail."""

    def __init__(self, outage: int = 0) -> None:
        self.outage, self.activations, self.submissions = outage, 0, 0
        self.statuses: list[str] = []
        self.activated: list[LineActivated] = []

    def activities(self) -> list[Any]:
        @activity.defn(name="activate_line")
        async def activate_line(call: CarrierCall) -> LineActivated:
            self.activations += 1
            if self.activations <= self.outage:
                raise ApplicationError("The carrier is unavailable: HTTP 503", type="Unavailable")
            return LineActivated("4045550178", "4045550178", "123456")

        @activity.defn(name="submit_port")
        async def submit_port(call: CarrierCall) -> PortSubmitted:
            self.submissions += 1
            return PortSubmitted("PRT1", "SUBMITTED")

        @activity.defn(name="port_status")
        async def port_status(poll: PortPoll) -> PortView:
            return PortView("COMPLETED", mdn=NUMBER, msid=NUMBER, msl="654321")

        @activity.defn(name="submit_and_record")  # a one-step PORTIN line's submission and its writes
        async def submit_and_record(call: CarrierCall) -> PortSubmitted:
            submitted = await submit_port(call)
            self.statuses.extend(["ACTIVATING", "PORT_SUBMITTED", "PORT_PENDING"])
            return submitted

        @activity.defn(name="watch_port")  # a port started since polls run by retries (workflows/porting.py)
        async def watch_port(poll: PortWatchPoll) -> PortView:
            view = PortView("COMPLETED", mdn=NUMBER, msid=NUMBER, msl="654321")
            self.statuses.append(f"PORT_{view.status}")  # the poll records what it found
            return view

        @activity.defn(name="set_line_status")
        async def set_line_status(state: LineState) -> None:
            self.statuses.append(state.status)

        @activity.defn(name="record_port_submitted")
        async def record_port_submitted(record: PortRecord) -> None:
            self.statuses.append("PORT_SUBMITTED")

        @activity.defn(name="record_port_status")
        async def record_port_status(enrollment_id: str, view: PortView) -> None:
            self.statuses.append(f"PORT_{view.status}")

        @activity.defn(name="record_activation")
        async def record_activation(record: ActivationRecord) -> None:
            self.activated.append(record.activated)

        @activity.defn(name="change_sim")
        async def change_sim(change: object) -> None:
            return None

        return [
            activate_line,
            submit_port,
            submit_and_record,
            port_status,
            watch_port,
            set_line_status,
            record_port_submitted,
            record_port_status,
            record_activation,
            change_sim,
        ]


def start(*, later: bool, pacing: Pacing) -> LineStart:
    plan = LinePlan("E1", "100000001", "100000001", "HANDOVER", "NEWACTIVATION", later)
    return LineStart(plan, "order-1", "E1", "DEMO", None, pacing)


async def run_line(env: Any, carrier: Carrier, line: LineStart) -> tuple[Worker, Any]:
    queue = f"line-port-{secrets.token_hex(4)}"
    worker = Worker(
        env.client, task_queue=queue, workflows=[LineWorkflow, PortStatusWorkflow], activities=carrier.activities()
    )
    attributes = TypedSearchAttributes(
        [SearchAttributePair(ACTIVATION_TYPE, "NEWACTIVATION"), SearchAttributePair(LINE_STATUS, "CUSTOMER_CREATED")]
    )
    handle = await env.client.start_workflow(
        LineWorkflow.run, line, id=f"line-{queue}", task_queue=queue, search_attributes=attributes
    )
    return worker, handle


async def until(env: Any, handle: Any, status: str) -> None:
    while (progress := await handle.query(LineWorkflow.status)) is None or progress.status != status:
        await env.sleep(timedelta(seconds=1))


async def update_events(handle: Any) -> list[str]:
    return [
        EventType.Name(event.event_type)
        async for event in handle.fetch_history_events()
        if "UPDATE" in EventType.Name(event.event_type)
    ]


async def test_a_waiting_line_ported_in_runs_as_a_portin_line_to_active(time_skipping):
    carrier = Carrier()
    worker, handle = await run_line(time_skipping, carrier, start(later=True, pacing=Pacing(port_poll_seconds=60)))
    async with worker:
        await until(time_skipping, handle, "WAITING_ACTIVATION")
        started = await handle.execute_update(LineWorkflow.port_in, PortRequest("E1", "request-1"))
        assert (started.status, started.port_id) == ("PORT_PENDING", "PRT1")
        # Ported in: it no longer waits for activation, so neither an activation nor a second port is taken.
        for update, argument in (
            (LineWorkflow.activate, Activation(1.0)),
            (LineWorkflow.port_in, PortRequest("E1", "r2")),
        ):
            with pytest.raises(WorkflowUpdateFailedError) as refused:
                await handle.execute_update(update, argument)
            assert "Line is not waiting for activation" in str(refused.value.cause)
        progress = await handle.result()
    assert (progress.status, progress.mdn) == ("ACTIVE", NUMBER)
    assert carrier.submissions == 1 and carrier.activations == 0
    # record_activation is a local activity: at least once, so a repeated workflow task may record it twice
    # (the real one writes nothing the second time). Every record carries the ported number, never a new one.
    assert {done.mdn for done in carrier.activated} == {NUMBER}
    assert "PORT_COMPLETED" in carrier.statuses
    described = await handle.describe()
    assert described.typed_search_attributes.get(ACTIVATION_TYPE) == "PORTIN"
    assert await update_events(handle) == [
        "EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED",
        "EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED",
    ]


async def test_the_port_update_of_a_line_not_waiting_is_refused_before_it_reaches_history(time_skipping):
    carrier = Carrier(outage=10_000)  # a new activation that keeps failing: the line is STUCK
    pacing = Pacing(carrier_max_attempts=1, stuck_retry_minutes=600)
    worker, handle = await run_line(time_skipping, carrier, start(later=False, pacing=pacing))
    async with worker:
        await until(time_skipping, handle, "STUCK")
        with pytest.raises(WorkflowUpdateFailedError) as refused:
            await handle.execute_update(LineWorkflow.port_in, PortRequest("E1", "request-1"))
        assert "Line is not waiting for activation (STUCK)" in str(refused.value.cause)
        assert await update_events(handle) == []
        await handle.terminate()
    assert carrier.submissions == 0


async def test_a_long_stuck_line_continues_as_new_still_stuck_and_activates_on_retry(time_skipping):
    carrier = Carrier(outage=10_000)
    pacing = Pacing(carrier_max_attempts=1, stuck_retry_minutes=15, stuck_retry_hours=24, history_events=60)
    worker, handle = await run_line(time_skipping, carrier, start(later=False, pacing=pacing))
    first_run = (await handle.describe()).run_id
    async with worker:
        await time_skipping.sleep(timedelta(hours=30))
        within_budget = carrier.activations
        assert 24 * 4 <= within_budget <= 24 * 4 + 2  # the budget counts from the first time it got stuck
        latest = time_skipping.client.get_workflow_handle(handle.id)
        assert (await latest.describe()).run_id != first_run  # it continued as new…
        assert (await latest.query(LineWorkflow.status)).status == "STUCK"  # …still stuck, with its error
        assert "503" in ((await latest.query(LineWorkflow.status)).error or "")
        carrier.outage = 0
        await latest.signal(LineWorkflow.retry)
        progress = await handle.result()  # the first run's handle follows the chain
    assert progress.status == "ACTIVE" and carrier.activations == within_budget + 1
    events = [EventType.Name(event.event_type) async for event in latest.fetch_history_events()]
    assert len(events) < 2 * pacing.history_events


async def test_a_portin_line_started_since_issue_20_submits_in_one_activity_and_polls_by_retries(time_skipping):
    carrier = Carrier()
    plan = LinePlan("E1", "100000001", "100000001", "HANDOVER", "PORTIN", False)
    line = LineStart(plan, "order-1", "E1", "DEMO", None, Pacing(port_poll_seconds=60), one_step=True)
    worker, handle = await run_line(time_skipping, carrier, line)
    async with worker:
        progress = await handle.result()
    assert (progress.status, progress.mdn) == ("ACTIVE", NUMBER)
    assert carrier.statuses == ["ACTIVATING", "PORT_SUBMITTED", "PORT_PENDING", "PORT_COMPLETED"]  # no step apart
    kinds = [EventType.Name(event.event_type) async for event in handle.fetch_history_events()]
    assert "EVENT_TYPE_MARKER_RECORDED" in kinds  # record_activation, the one local activity left
    assert kinds.count("EVENT_TYPE_MARKER_RECORDED") == 1  # no patch marker: the input chose the path
    assert kinds.count("EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES") == 2  # PORT_PENDING, then ACTIVE
