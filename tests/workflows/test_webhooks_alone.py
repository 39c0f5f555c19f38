"""The webhook workflows alone on the time-skipping server, their activities stand-ins under the real names.
A delivery is retried from 2 s, doubling, to an hour between attempts, until the receiver answers, and gives up
(recording why) after its 72 hours; the dispatcher starts one delivery workflow per queued delivery, once
however often a look finds it, and marks what it started."""

from __future__ import annotations

import asyncio
import itertools
from datetime import timedelta

from temporalio.exceptions import ApplicationError

from models.envelope import UNAVAILABLE
from models.webhooks import DeliveryJob, Dispatch
from tests.support.alone import Calls, fresh_queue, stand_in, worker
from tests.support.waiting import eventually
from workflows.webhooks import WebhookDeliveryWorkflow, WebhookDispatchWorkflow, delivery_workflow_id

JOB = DeliveryJob(delivery_id=7, key="whe_1-evt_1")


async def run_delivery(env, receiver) -> tuple[Calls, str]:
    calls, queue = Calls(env), fresh_queue("webhooks")

    async def gave_up(_: DeliveryJob) -> None:
        return None

    deliver = stand_in("deliver", calls, receiver, takes=[DeliveryJob], gives=str)
    give_up = stand_in("give_up", calls, gave_up, takes=[DeliveryJob], gives=None)
    async with worker(env, queue, workflows=[WebhookDeliveryWorkflow], activities=[deliver, give_up]):
        result = await env.client.execute_workflow(
            WebhookDeliveryWorkflow.run, JOB, id=delivery_workflow_id(JOB), task_queue=queue
        )
    return calls, result


async def test_a_receiver_down_for_five_hours_gets_the_delivery_once_it_is_back(time_skipping):
    began = await time_skipping.get_current_time()

    async def receiver(_: DeliveryJob) -> str:
        if await time_skipping.get_current_time() - began < timedelta(hours=5):
            raise ApplicationError("receiver answered 503", type=UNAVAILABLE)
        return "DELIVERED"

    calls, result = await run_delivery(time_skipping, receiver)
    assert result == "DELIVERED" and calls.names().count("give_up") == 0
    times = [call.at for call in calls.seen]
    gaps = [round((later - earlier).total_seconds()) for earlier, later in itertools.pairwise(times)]
    assert gaps[:5] == [2, 4, 8, 16, 32]  # from seconds…
    assert max(gaps) == 3600  # …to an hour between attempts, never more
    assert timedelta(hours=5) <= times[-1] - began <= timedelta(hours=6)


async def test_a_receiver_that_never_answers_is_given_up_on_after_72_hours(time_skipping):
    async def receiver(_: DeliveryJob) -> str:
        raise ApplicationError("receiver answered 500", type=UNAVAILABLE)

    calls, result = await run_delivery(time_skipping, receiver)
    assert result == "FAILED"
    assert calls.of("give_up") == [(JOB,)]
    assert timedelta(hours=71) <= calls.span("deliver") <= timedelta(hours=72)


async def test_the_dispatcher_starts_each_queued_delivery_once_and_marks_it_taken(time_skipping):
    calls, queue = Calls(time_skipping), fresh_queue("dispatch")
    second = DeliveryJob(delivery_id=8, key="whe_1-evt_2")
    looks = itertools.count()

    async def queued(_: Dispatch) -> list[DeliveryJob]:
        look = next(looks)
        if look < 2:  # the second look finds the first delivery again, before its mark landed
            return [JOB, second] if look == 0 else [JOB]
        await asyncio.sleep(0.2)  # nothing queued: a look that waited its time
        return []

    both_seen = asyncio.Event()  # two deliveries started and two looks marked

    def note_progress() -> None:
        if len(calls.of("deliver")) >= 2 and len(calls.of("mark_taken")) >= 2:
            both_seen.set()

    async def delivered(_: DeliveryJob) -> str:
        note_progress()
        return "DELIVERED"

    async def marked(_: list[DeliveryJob]) -> None:
        note_progress()

    activities = [
        stand_in("queued_deliveries", calls, queued, takes=[Dispatch], gives=list[DeliveryJob]),
        stand_in("mark_taken", calls, marked, takes=[list[DeliveryJob]], gives=None),
        stand_in("deliver", calls, delivered, takes=[DeliveryJob], gives=str),
    ]
    workflows: list[type] = [WebhookDispatchWorkflow, WebhookDeliveryWorkflow]
    async with worker(time_skipping, queue, workflows=workflows, activities=activities):
        handle = await time_skipping.client.start_workflow(
            WebhookDispatchWorkflow.run, Dispatch(poll_seconds=1, rounds=3), id=f"{queue}-webhooks", task_queue=queue
        )
        await asyncio.wait_for(both_seen.wait(), timeout=30)

        async def looks_made() -> int:
            return len(calls.of("queued_deliveries"))

        # Two looks past the one that found JOB again: a second start of it would have been made (and refused).
        await eventually(looks_made, lambda looks: looks >= 4, what="two more looks")
        await handle.terminate()
    assert sorted(job.delivery_id for (job,) in calls.of("deliver")) == [7, 8]  # JOB once, though found twice
    assert calls.of("mark_taken")[:2] == [([JOB, second],), ([JOB],)]


async def test_the_dispatcher_continues_as_new_before_its_history_grows(time_skipping, data_dir, sqlite_url):
    """Issue 27, finding 6: a look that finds many deliveries adds two events per delivery; the dispatcher
    continues as new past LINEUP_WORKFLOW_HISTORY_EVENTS (or when Temporal suggests it), not after a fixed
    number of looks, and keeps dispatching."""
    from temporalio.client import WorkflowExecutionStatus

    from api.temporal import ensure_dispatch
    from tests.support.app import make_settings

    calls, queue = Calls(time_skipping), fresh_queue("dispatch")
    settings = make_settings(data_dir, sqlite_url, temporal_task_queue=queue, workflow_history_events=100)
    numbers = itertools.count(1)

    async def queued(_: Dispatch) -> list[DeliveryJob]:
        return [DeliveryJob(delivery_id=n, key=f"whe_1-evt_{n}") for n in itertools.islice(numbers, 10)]

    async def nothing(*_: object) -> None:
        return None

    async def delivered(_: DeliveryJob) -> str:
        return "DELIVERED"

    activities = [
        stand_in("queued_deliveries", calls, queued, takes=[Dispatch], gives=list[DeliveryJob]),
        stand_in("mark_taken", calls, nothing, takes=[list[DeliveryJob]], gives=None),
        stand_in("deliver", calls, delivered, takes=[DeliveryJob], gives=str),
    ]
    workflows: list[type] = [WebhookDispatchWorkflow, WebhookDeliveryWorkflow]
    async with worker(time_skipping, queue, workflows=workflows, activities=activities):
        await ensure_dispatch(time_skipping.client, settings)
        handle = time_skipping.client.get_workflow_handle(f"{queue}-webhooks")
        first_run = (await handle.describe()).run_id
        first = time_skipping.client.get_workflow_handle(f"{queue}-webhooks", run_id=first_run)
        for _ in range(300):
            if (await first.describe()).status == WorkflowExecutionStatus.CONTINUED_AS_NEW:
                break
            await asyncio.sleep(0.1)
        events = [event async for event in first.fetch_history_events()]
        looks = len(calls.of("queued_deliveries"))
        for _ in range(100):  # the next run dispatches on
            if len(calls.of("queued_deliveries")) > looks + 1:
                break
            await asyncio.sleep(0.1)
        await handle.terminate()
    assert (await first.describe()).status == WorkflowExecutionStatus.CONTINUED_AS_NEW
    # The limit, and the one look that crossed it: its activity, 10 child starts of 2 events each, and the workflow
    # tasks their started events wake, one each on a busy machine (a run of 100 looks, as before, had over 4,000).
    assert len(events) <= 100 + 10 * 2 + 10 * 3 + 50
    assert len(calls.of("queued_deliveries")) > looks + 1
