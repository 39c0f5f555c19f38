"""SweepWorkflow alone on the time-skipping server: `left_behind` and `purge_tokens` stand-in activities and
stand-in EnrollmentWorkflow and MailDeliveryWorkflow children, all under the real names. Its contract: every
order and mail left behind started under the id its own request would have used (so nothing starts twice), an
order with the search attributes operations filter by; a workflow running or completed already left alone, a
failed one started again; the children outlive the sweep; spent tokens purged; a database that does not answer
ends the sweep after a few tries, starting nothing (the next sweep comes anyway)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from temporalio.client import WorkflowExecutionStatus, WorkflowFailureError
from temporalio.exceptions import ActivityError, ApplicationError

from models.enrollment.lines import EnrollmentOrder, LinePlan, Pacing
from models.envelope import UNAVAILABLE
from models.mail import MailDelivery, MailSent
from models.support import LeftBehind, Sweep, SweepReport
from tests.support.alone import Calls, fresh_queue, stand_in, worker
from tests.support.stand_in_workflows import StandInEnrollment, StandInMail
from workflows.enrollment import AGENT_ID, PARENT_ENROLLMENT_ID
from workflows.support import SweepWorkflow

SWEEP = Sweep(grace_seconds=90, token_retention_hours=12, pacing=Pacing(carrier_max_attempts=2))


def order(parent: str) -> EnrollmentOrder:
    lines = [
        LinePlan(line_id, "100000001", "100000001", "SHIPMENT", "NEWACTIVATION", False)
        for line_id in (parent, f"{parent}-2")
    ]
    return EnrollmentOrder(f"enrollment-{parent}-r1", parent, lines, "DEMO", "demo.agent", Pacing())


def sweeper(env, left: LeftBehind, *, down: bool = False) -> tuple[Calls, Any, str]:
    calls, queue = Calls(env), fresh_queue("sweep")

    async def left_behind(_: Sweep) -> LeftBehind:
        if down:
            raise ApplicationError("The database is unavailable", type=UNAVAILABLE)
        return left

    async def purge_tokens(_: Sweep) -> int:
        return 3

    activities = [
        stand_in("left_behind", calls, left_behind, takes=[Sweep], gives=LeftBehind),
        stand_in("purge_tokens", calls, purge_tokens, takes=[Sweep], gives=int),
    ]
    workflows: list[type] = [SweepWorkflow, StandInEnrollment, StandInMail]
    return calls, worker(env, queue, workflows=workflows, activities=activities), queue


async def sweep(env, queue: str, *, let_time_skip: bool = False) -> SweepReport:
    """The sweep's report. Unless `let_time_skip`, the server's clock stands still meanwhile: once a result is in,
    the time-skipping server may jump years ahead, and the children left running would time out."""
    run = env.client.execute_workflow(SweepWorkflow.run, SWEEP, id=f"{queue}-sweep", task_queue=queue)
    if let_time_skip:
        report: SweepReport = await run
        return report
    with env.auto_time_skipping_disabled():
        report = await run
    return report


async def started_with(env, workflow_id: str, kind: type) -> Any:
    history = await env.client.get_workflow_handle(workflow_id).fetch_history()
    payloads = history.events[0].workflow_execution_started_event_attributes.input.payloads
    [given] = await env.client.data_converter.decode(payloads, [kind])
    return given


async def test_what_was_left_behind_is_started_under_its_own_ids_and_spent_tokens_are_purged(time_skipping):
    orders, mail = [order("E1"), order("E2")], MailDelivery(7, "key-7")
    calls, running, queue = sweeper(time_skipping, LeftBehind(orders, [mail]))
    async with running:
        report = await sweep(time_skipping, queue)
        enrollments = {
            o.order_id: await time_skipping.client.get_workflow_handle(o.order_id).describe() for o in orders
        }
        given = [await started_with(time_skipping, o.order_id, EnrollmentOrder) for o in orders]
        sent = await time_skipping.client.get_workflow_handle_for(StandInMail.run, "mail-key-7").result()
        delivery = await started_with(time_skipping, "mail-key-7", MailDelivery)
    assert report == SweepReport(enrollments_started=2, mails_started=1, tokens_purged=3)
    assert calls.names() == ["left_behind", "purge_tokens"]
    assert calls.of("left_behind") == calls.of("purge_tokens") == [(SWEEP,)]
    assert given == orders and (delivery, sent) == (mail, MailSent("<key-7>"))
    for found in enrollments.values():
        assert found.status == WorkflowExecutionStatus.RUNNING  # the orders outlive the sweep
        assert found.typed_search_attributes.get(AGENT_ID) == "demo.agent"
    assert enrollments["enrollment-E1-r1"].typed_search_attributes.get(PARENT_ENROLLMENT_ID) == "E1"


async def test_a_workflow_running_or_completed_is_left_alone_and_a_failed_one_started_again(time_skipping):
    running_order, new_order = order("E1"), order("E2")
    done, failed = MailDelivery(1, "key-done"), MailDelivery(2, "key-FAIL")
    _, running, queue = sweeper(time_skipping, LeftBehind([running_order, new_order], [done, failed]))
    client = time_skipping.client
    # The clock stands still: a jump of the skipped clock would time out the running order.
    with time_skipping.auto_time_skipping_disabled():
        async with running:
            first = await client.start_workflow(
                StandInEnrollment.run, running_order, id=running_order.order_id, task_queue=queue
            )
            await client.execute_workflow(StandInMail.run, done, id="mail-key-done", task_queue=queue)
            refused = await client.start_workflow(StandInMail.run, failed, id="mail-key-FAIL", task_queue=queue)
            with pytest.raises(WorkflowFailureError):
                await refused.result()
            report = await sweep(time_skipping, queue)
            mails = {
                key: (await client.get_workflow_handle(f"mail-{key}").describe()) for key in ("key-done", "key-FAIL")
            }
            enrollment = await client.get_workflow_handle(running_order.order_id).describe()
    assert report == SweepReport(enrollments_started=1, mails_started=1, tokens_purged=3)
    assert (enrollment.run_id, enrollment.status) == (first.result_run_id, WorkflowExecutionStatus.RUNNING)
    assert mails["key-done"].status == WorkflowExecutionStatus.COMPLETED
    assert mails["key-FAIL"].run_id != refused.result_run_id  # started again by the sweep (and refused again)


async def test_a_database_that_does_not_answer_ends_the_sweep_after_three_tries_starting_nothing(time_skipping):
    calls, running, queue = sweeper(time_skipping, LeftBehind([order("E1")], []), down=True)
    async with running:
        with pytest.raises(WorkflowFailureError) as failed:
            await sweep(time_skipping, queue, let_time_skip=True)  # past the retries' backoff
    assert isinstance(failed.value.cause, ActivityError)
    error = failed.value.cause.cause
    assert isinstance(error, ApplicationError) and error.type == UNAVAILABLE
    assert calls.names() == ["left_behind"] * 3  # no purge, no start
    assert calls.span("left_behind") <= timedelta(seconds=4)  # retried after 1 s, then 2 s
