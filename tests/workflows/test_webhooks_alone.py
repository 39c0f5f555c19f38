"""The webhook workflows alone on the time-skipping server, their activities stand-ins under the real names.
The dispatcher makes a look's first attempts in one activity and starts a delivery workflow only for a delivery
whose first attempt failed; that retries it 2 s, 4 s… later, doubling to an hour between attempts, until the
receiver answers, and gives up (recording why) after its 72 hours."""

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
    times = [began] + [call.at for call in calls.seen]  # the first attempt was the dispatcher's, as it started
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


async def test_a_delivery_whose_first_attempt_fails_gets_a_retry_workflow_and_is_delivered_once(time_skipping):
    calls, queue = Calls(time_skipping), fresh_queue("dispatch")
    second = DeliveryJob(delivery_id=8, key="whe_1-evt_2")
    looks = itertools.count()
    retried = asyncio.Event()

    async def queued(_: Dispatch) -> list[DeliveryJob]:
        if next(looks) == 0:
            return [JOB, second]
        await asyncio.sleep(0.2)  # nothing queued: a look that waited its time
        return []

    async def first_attempts(jobs: list[DeliveryJob]) -> list[DeliveryJob]:
        return [job for job in jobs if job == JOB]  # JOB's receiver answered 503; the second got through

    async def delivered(_: DeliveryJob) -> str:
        retried.set()
        return "DELIVERED"

    activities = [
        stand_in("queued_deliveries", calls, queued, takes=[Dispatch], gives=list[DeliveryJob]),
        stand_in("first_attempts", calls, first_attempts, takes=[list[DeliveryJob]], gives=list[DeliveryJob]),
        stand_in("deliver", calls, delivered, takes=[DeliveryJob], gives=str),
    ]
    workflows: list[type] = [WebhookDispatchWorkflow, WebhookDeliveryWorkflow]
    async with worker(time_skipping, queue, workflows=workflows, activities=activities):
        handle = await time_skipping.client.start_workflow(
            WebhookDispatchWorkflow.run, Dispatch(poll_seconds=1, rounds=3), id=f"{queue}-webhooks", task_queue=queue
        )
        await asyncio.wait_for(retried.wait(), timeout=30)
        retry = time_skipping.client.get_workflow_handle(delivery_workflow_id(JOB))
        assert await retry.result() == "DELIVERED"

        async def looks_made() -> int:
            return len(calls.of("queued_deliveries"))

        await eventually(looks_made, lambda looks: looks >= 3, what="two more looks")
        await handle.terminate()
    assert calls.of("first_attempts")[:1] == [([JOB, second],)]  # the look's first attempts, in one activity
    assert calls.of("deliver") == [(JOB,)]  # the failed one retried once, by its own workflow; none for the second
    first_look = next(call.at for call in calls.seen if call.name == "first_attempts")
    [its_retry] = [call.at for call in calls.seen if call.name == "deliver"]
    assert its_retry - first_look >= timedelta(seconds=2)  # after the policy's first pause, not at once


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

    async def all_failed(jobs: list[DeliveryJob]) -> list[DeliveryJob]:
        return jobs  # every receiver down: a retry workflow each, the most a look adds to the history

    async def delivered(_: DeliveryJob) -> str:
        return "DELIVERED"

    activities = [
        stand_in("queued_deliveries", calls, queued, takes=[Dispatch], gives=list[DeliveryJob]),
        stand_in("first_attempts", calls, all_failed, takes=[list[DeliveryJob]], gives=list[DeliveryJob]),
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
    # The limit, and the one look that crossed it: its two activities, 10 child starts of 2 events each, and the
    # workflow tasks their started events wake, one each on a busy machine (a run of 100 looks had over 4,000).
    assert len(events) <= 100 + 2 * 6 + 10 * 2 + 10 * 3 + 50
    assert len(calls.of("queued_deliveries")) > looks + 1
