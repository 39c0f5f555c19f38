"""Issue 35, finding 9: webhooks minutes late under load. The dispatcher started a workflow per delivery (its
start, three workflow tasks and an activity task each), which cost about as much as the events coming in: on a
loaded machine every disruption added lag that never drained. A look's first attempts are now made by the
dispatcher itself in one activity, slow receivers side by side, and only a delivery whose first attempt failed
gets a workflow of its own."""

from __future__ import annotations

import asyncio
import itertools

from temporalio.api.enums.v1 import EventType

from models.webhooks import DeliveryJob, Dispatch
from tests.support.alone import Calls, fresh_queue, stand_in, worker
from workflows.webhooks import WebhookDeliveryWorkflow, WebhookDispatchWorkflow

RECEIVERS = 8
SLOW = 1.0  # seconds each receiver takes to answer


async def test_a_look_of_slow_receivers_is_delivered_side_by_side_in_one_activity(time_skipping):
    calls, queue = Calls(time_skipping), fresh_queue("dispatch")
    jobs = [DeliveryJob(delivery_id=n, key=f"whe_{n}-evt_{n}") for n in range(RECEIVERS)]
    looks = itertools.count()
    all_delivered = asyncio.Event()

    async def queued(_: Dispatch) -> list[DeliveryJob]:
        if next(looks) == 0:
            return jobs
        await asyncio.sleep(0.2)  # nothing queued: a look that waited its time
        return []

    async def slow_receivers(batch: list[DeliveryJob]) -> list[DeliveryJob]:
        await asyncio.gather(*(asyncio.sleep(SLOW) for _ in batch))  # as the activity POSTs them: together
        all_delivered.set()
        return []  # every one got through

    async def deliver(_: DeliveryJob) -> str:
        return "DELIVERED"

    activities = [
        stand_in("queued_deliveries", calls, queued, takes=[Dispatch], gives=list[DeliveryJob]),
        stand_in("first_attempts", calls, slow_receivers, takes=[list[DeliveryJob]], gives=list[DeliveryJob]),
        stand_in("deliver", calls, deliver, takes=[DeliveryJob], gives=str),
    ]
    workflows: list[type] = [WebhookDispatchWorkflow, WebhookDeliveryWorkflow]
    async with worker(time_skipping, queue, workflows=workflows, activities=activities):
        handle = await time_skipping.client.start_workflow(
            WebhookDispatchWorkflow.run, Dispatch(poll_seconds=1), id=f"{queue}-webhooks", task_queue=queue
        )
        began = asyncio.get_running_loop().time()
        await asyncio.wait_for(all_delivered.wait(), timeout=30)
        took = asyncio.get_running_loop().time() - began
        await asyncio.sleep(0.5)  # the workflow task after the batch, which would have started any retries
        history = await handle.fetch_history()
        await handle.terminate()

    assert calls.of("first_attempts") == [(jobs,)]  # the whole look in one activity
    assert calls.of("deliver") == []
    started = EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED
    assert not [event for event in history.events if event.event_type == started]  # no workflow for a delivered one
    # Eight receivers of a second each, side by side: well under the eight seconds of one after another.
    assert took < SLOW * RECEIVERS / 2
