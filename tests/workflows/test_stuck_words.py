"""A stuck line's error says what support needs in plain words (issue 35, item 13): a carrier step whose last
attempt ended with its worker (killed mid-attempt: the attempt's heartbeat or its time ran out with no answer)
reads "The worker stopped during the carrier step; retrying is safe", not the SDK's "Activity task timed out"."""

from __future__ import annotations

import asyncio
import secrets

from temporalio import activity
from temporalio.exceptions import ActivityError, ApplicationError, RetryState, TimeoutError, TimeoutType
from temporalio.worker import Worker

from models.enrollment.lines import (
    WORKER_STOPPED,
    CarrierCall,
    LineActivated,
    LinePlan,
    LineStart,
    LineState,
    LineStatus,
    Pacing,
)
from workflows.enrollment import LineWorkflow, stuck_reason

MDN = "4045550179"


async def test_a_line_whose_worker_stopped_mid_attempt_is_stuck_saying_so_and_heals(time_skipping):
    states: list[LineState] = []
    calls: list[CarrierCall] = []

    @activity.defn(name="activate_and_record")
    async def activate_and_record(call: CarrierCall) -> LineActivated:
        calls.append(call)
        if len(calls) == 1:  # the worker "dies": no heartbeat, no answer, until the heartbeat timeout passes
            await asyncio.sleep(3600)
        return LineActivated(MDN, MDN, "123456")

    @activity.defn(name="set_line_status")
    async def set_line_status(state: LineState) -> None:
        states.append(state)

    queue = f"stuck-words-{secrets.token_hex(4)}"
    plan = LinePlan("E1", "100000001", "100000001", "HANDOVER", "NEWACTIVATION", False, status=LineStatus.ACTIVATING)
    pacing = Pacing(carrier_max_attempts=1, stuck_retry_minutes=15, stuck_retry_hours=24)
    first = LineStart(plan, "order-1", "E1", "DEMO", None, pacing=pacing)
    async with Worker(
        time_skipping.client,
        task_queue=queue,
        workflows=[LineWorkflow],
        activities=[activate_and_record, set_line_status],
    ):
        handle = await time_skipping.client.start_workflow(
            LineWorkflow.run, first, id=f"line-{queue}", task_queue=queue
        )
        progress = await handle.result()
    assert (progress.status, progress.mdn) == (LineStatus.ACTIVE, MDN)
    assert [(state.status, state.error) for state in states if state.status == LineStatus.STUCK] == [
        (LineStatus.STUCK, WORKER_STOPPED)
    ]
    assert len({call.idempotency_key for call in calls}) == 1  # the retry is safe: the same key


def timed_out(kind: TimeoutType) -> ActivityError:
    failure = ActivityError(
        "Activity task timed out",
        scheduled_event_id=1,
        started_event_id=2,
        identity="worker",
        activity_type="activate_and_record",
        activity_id="1",
        retry_state=RetryState.MAXIMUM_ATTEMPTS_REACHED,
    )
    failure.__cause__ = TimeoutError("activity timeout", type=kind, last_heartbeat_details=[])
    return failure


def test_the_words_follow_how_the_attempt_ended():
    assert stuck_reason(timed_out(TimeoutType.START_TO_CLOSE)) == WORKER_STOPPED
    assert stuck_reason(timed_out(TimeoutType.HEARTBEAT)) == WORKER_STOPPED
    assert stuck_reason(timed_out(TimeoutType.SCHEDULE_TO_CLOSE)) == "Activity task timed out"
    refused = timed_out(TimeoutType.HEARTBEAT)
    refused.__cause__ = ApplicationError("915 SIM already in use", type="CarrierRejected")
    assert stuck_reason(refused) == "915 SIM already in use"
