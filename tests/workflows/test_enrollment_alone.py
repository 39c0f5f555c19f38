"""EnrollmentWorkflow alone on the time-skipping server: `create_customers` a stand-in activity and each line
a stand-in LineWorkflow, both under the real names. Its contract: every line's customer record first, then one
line workflow per line (id `line-<enrollment id>`, the order's vendor and pacing, outliving the enrollment);
the `customers` update answers once the records exist, with the MDNs the carrier gave within the caller's wait
and none for lines still activating; a settled line (STUCK, reported by signal) ends the wait at once; the
result is every line's final state."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

from temporalio.client import WithStartWorkflowOperation, WorkflowExecutionStatus
from temporalio.common import WorkflowIDConflictPolicy
from temporalio.worker import Worker

from models.messages.enrollment import (
    EnrollmentOrder,
    EnrollmentResult,
    LinePlan,
    LineStart,
    Pacing,
    SyncWait,
)
from models.statuses import IN_FLIGHT, LineStatus
from tests.support.alone import Calls, fresh_queue, stand_in, worker
from tests.support.stand_in_workflows import SLOW, StandInLine, mdn_of
from workflows.enrollment.order import EnrollmentWorkflow

PACING = Pacing(carrier_max_attempts=3, port_poll_seconds=60.0, stuck_retry_minutes=5.0)


def plans(order: EnrollmentOrder) -> list[LinePlan]:
    return [
        LinePlan(line_id, f"C{index}", f"CUST{index}", "HANDOVER", "NEWACTIVATION", False, carrier="ATT")
        for index, line_id in enumerate(order.enrollment_ids)
    ]


def order_of(*line_ids: str) -> EnrollmentOrder:
    return EnrollmentOrder(f"enrollment-{line_ids[0]}-r1", line_ids[0], list(line_ids), "DEMO", "demo.agent", PACING)


def enroll(env, order: EnrollmentOrder) -> tuple[Calls, Worker, str]:
    """A worker of its own running the enrollment with a stand-in `create_customers` and stand-in lines."""
    calls, queue = Calls(env), fresh_queue("enrollment")

    async def created(order: EnrollmentOrder) -> list[LinePlan]:
        return plans(order)

    create_customers = stand_in("create_customers", calls, created, takes=[EnrollmentOrder], gives=list[LinePlan])
    return calls, worker(env, queue, workflows=[EnrollmentWorkflow, StandInLine], activities=[create_customers]), queue


async def update_with_start(env, order: EnrollmentOrder, queue: str, wait: float) -> tuple[EnrollmentResult, Any]:
    """As the API asks: the `customers` update with start, answering after at most `wait` for the carrier."""
    start = WithStartWorkflowOperation(
        EnrollmentWorkflow.run,
        order,
        id=order.order_id,
        task_queue=queue,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
    )
    answer = await env.client.execute_update_with_start_workflow(
        EnrollmentWorkflow.customers, SyncWait(wait), start_workflow_operation=start
    )
    return answer, await start.workflow_handle()


async def started_with(env, workflow_id: str) -> LineStart:
    """The input a line's workflow was started with, as its history records it."""
    history = await env.client.get_workflow_handle(workflow_id).fetch_history()
    payloads = history.events[0].workflow_execution_started_event_attributes.input.payloads
    [start] = await env.client.data_converter.decode(payloads, [LineStart])
    assert isinstance(start, LineStart)
    return start


def by_line(result: EnrollmentResult) -> dict[str, LinePlan]:
    return {plan.enrollment_id: plan for plan in result.lines}


async def test_every_line_gets_its_customer_record_and_a_line_workflow_of_its_own(time_skipping):
    order = order_of("E1", "E2", "E3")
    calls, running, queue = enroll(time_skipping, order)
    async with running:
        answer, handle = await update_with_start(time_skipping, order, queue, 5)
        result = await handle.result()
        given = {line_id: await started_with(time_skipping, f"line-{line_id}") for line_id in order.enrollment_ids}
    assert calls.of("create_customers") == [(order,)]  # once, for the whole order
    assert {line_id: (p.status, p.mdn) for line_id, p in by_line(answer).items()} == {
        line_id: (LineStatus.ACTIVE, mdn_of(line_id)) for line_id in order.enrollment_ids
    }
    assert result == answer
    assert given == {
        plan.enrollment_id: LineStart(plan, order.order_id, "E1", "DEMO", "demo.agent", PACING, one_step=True)
        for plan in plans(order)
    }  # each line its own plan, with the order's vendor, agent and pacing


async def test_the_answer_has_the_mdns_given_within_the_wait_and_the_slow_line_goes_on(time_skipping):
    order = order_of("E1", "E2SLOW")
    _, running, queue = enroll(time_skipping, order)
    async with running:
        began = await time_skipping.get_current_time()
        handle = await time_skipping.client.start_workflow(
            EnrollmentWorkflow.run, order, id=order.order_id, task_queue=queue
        )  # a handle whose result() lets the server skip time
        update = asyncio.create_task(handle.execute_update(EnrollmentWorkflow.customers, SyncWait(30)))
        await time_skipping.sleep(timedelta(seconds=25))  # the caller's wait goes by on the skipped clock…
        assert not update.done()  # …the answer waiting on the slow line until its end
        await time_skipping.sleep(timedelta(seconds=10))
        answer = await update
        result = await handle.result()
        ended = await time_skipping.get_current_time()
    early = by_line(answer)
    assert (early["E1"].status, early["E1"].mdn) == (LineStatus.ACTIVE, mdn_of("E1"))
    assert early["E2SLOW"].mdn is None and early["E2SLOW"].status in IN_FLIGHT  # answered before the carrier
    assert (by_line(result)["E2SLOW"].status, by_line(result)["E2SLOW"].mdn) == (LineStatus.ACTIVE, mdn_of("E2SLOW"))
    assert ended - began >= SLOW


async def test_a_stuck_line_ends_the_wait_at_once_and_outlives_its_enrollment(time_skipping):
    order = order_of("E1", "E2STUCK")
    _, running, queue = enroll(time_skipping, order)
    async with running:
        began = await time_skipping.get_current_time()
        answer, handle = await update_with_start(time_skipping, order, queue, 600)
        answered = await time_skipping.get_current_time()
        status = await handle.query(EnrollmentWorkflow.status)
        await handle.terminate("support ended the order")
        stuck = time_skipping.client.get_workflow_handle_for(StandInLine.run, "line-E2STUCK")
        still = (await stuck.describe()).status
        await stuck.signal("retry")
        retried = await stuck.result()
    assert (by_line(answer)["E2STUCK"].status, by_line(answer)["E2STUCK"].mdn) == (LineStatus.STUCK, None)
    assert answered - began < timedelta(seconds=600)  # a settled line is not waited for
    assert status == answer
    assert still == WorkflowExecutionStatus.RUNNING  # the line outlives the terminated enrollment…
    assert retried.status == LineStatus.ACTIVE  # …so support may still retry it
