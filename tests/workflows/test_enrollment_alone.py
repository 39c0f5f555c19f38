"""EnrollmentWorkflow alone on the dev server (its local activities' deadlines are wall-clock time, which the
time-skipping server's clock is not), with `activate_all_and_record`, `submit_and_record`, `set_line_status`
and `finish_port` stand-in activities and each line's workflow a stand-in, all under the real names. Its contract
(intake gave every line its customer record): each line's carrier step tried at once, in local activities, all
lines together (the activations in one local activity per attempt), with the key its own workflow would use; the
`customers` update answered in that same workflow task, with the MDNs the carrier gave and none for a line the
carrier did not answer in time; a line the first try activated is done in the order (no workflow of its own; the
order's search attributes name it and its status); every other line goes on in a workflow of its own
(`line-<id>`, or `port-<id>` for a PORTIN line) with the line as the order left it, outliving the order."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from temporalio.client import WithStartWorkflowOperation, WorkflowExecutionStatus
from temporalio.common import WorkflowIDConflictPolicy
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError, RPCStatusCode
from temporalio.worker import Worker

from models.enrollment.lines import (
    CarrierCall,
    EnrollmentOrder,
    EnrollmentResult,
    FirstTries,
    FirstTryOutcome,
    LineActivated,
    LinePlan,
    LineStart,
    LineState,
    LineStatus,
    Pacing,
)
from models.envelope import CARRIER_REJECTED, UNAVAILABLE
from models.porting import PortFinish, PortOutcome, PortStart, PortSubmission
from tests.support.alone import Calls, fresh_queue, stand_in, worker
from tests.support.stand_in_workflows import StandInLine, StandInPort, mdn_of
from tests.support.waiting import eventually
from workflows.enrollment import (
    ENROLLMENT_IDS,
    LINE_STATUSES,
    MDNS,
    EnrollmentWorkflow,
    enrollment_search_attributes,
    line_query,
)

RUN = 6  # the length of a test's own prefix of its enrollment ids
PACING = Pacing(carrier_max_attempts=3, port_poll_seconds=60.0, stuck_retry_minutes=5.0, sync_wait_seconds=5.0)


def plans(line_ids: tuple[str, ...]) -> list[LinePlan]:
    """The lines as intake stored them, each with its customer record."""

    def kind(line_id: str) -> str:
        return "PORTIN" if "PORT" in line_id else "NEWACTIVATION"

    return [
        LinePlan(line_id, f"C{index}", "C0", "HANDOVER", kind(line_id), "LATER" in line_id, carrier="ATT")
        for index, line_id in enumerate(line_ids)
    ]


def order_of(*names: str) -> EnrollmentOrder:
    """Each test's ids are its own: the session's dev server keeps every workflow id it has seen."""
    run = uuid.uuid4().hex[:RUN].upper()
    line_ids = tuple(run + name for name in names)
    return EnrollmentOrder(f"enrollment-{line_ids[0]}-r1", line_ids[0], plans(line_ids), "DEMO", "demo.agent", PACING)


def id_of(order: EnrollmentOrder, name: str) -> str:
    return order.enrollment_ids[0][:RUN] + name


class Carrier:
    """By the line's id: DOWN never answers, SIM is refused (915), anything else activates (or takes the port)."""

    def __init__(self, env: Any) -> None:
        self.calls = Calls(env)
        self.running = 0
        self.most_at_once = 0

    async def activate(self, call: CarrierCall) -> LineActivated:
        await self._busy()
        if "DOWN" in call.enrollment_id:
            raise ApplicationError("The carrier is unavailable: HTTP 503", type=UNAVAILABLE)
        if "SIM" in call.enrollment_id:
            raise ApplicationError("915 SIM already in use", type=CARRIER_REJECTED, non_retryable=True)
        return LineActivated(mdn_of(call.enrollment_id), "msid", "123456")

    async def submit(self, call: CarrierCall) -> PortSubmission:
        await self._busy()
        if "NOTELIGIBLE" in call.enrollment_id:
            raise ApplicationError("930 Number not eligible", type=CARRIER_REJECTED, non_retryable=True)
        return PortSubmission(f"PRT-{call.enrollment_id}", "2026-11-25T00:00:00+00:00")

    async def _busy(self) -> None:
        """Counts how many carrier steps run at once (the lines of one order run together)."""
        self.running += 1
        self.most_at_once = max(self.most_at_once, self.running)
        await asyncio.sleep(0.05)
        self.running -= 1


def enroll(env, order: EnrollmentOrder) -> tuple[Carrier, Worker, str]:
    carrier, queue = Carrier(env), fresh_queue("enrollment")
    calls = carrier.calls

    async def recorded(*_: object) -> None:
        return None

    async def finished(*_: object) -> PortOutcome:
        return PortOutcome("PORT_REJECTED")

    async def activate_all(tries: FirstTries) -> list[FirstTryOutcome]:
        """As the real activity answers: each line's activation at once, each line's outcome its own."""

        async def one(call: CarrierCall) -> FirstTryOutcome:
            await calls.note("activation", call)
            try:
                return FirstTryOutcome(call.enrollment_id, activated=await carrier.activate(call))
            except ApplicationError as error:
                refused = error.message if error.type == CARRIER_REJECTED else None
                return FirstTryOutcome(call.enrollment_id, refused=refused)

        return list(await asyncio.gather(*(one(call) for call in tries.calls)))

    activities = [
        stand_in("set_line_status", calls, recorded, takes=[LineState], gives=None),
        stand_in("finish_port", calls, finished, takes=[PortFinish], gives=PortOutcome),
        stand_in("activate_all_and_record", calls, activate_all, takes=[FirstTries], gives=list[FirstTryOutcome]),
        stand_in("submit_and_record", calls, carrier.submit, takes=[CarrierCall], gives=PortSubmission),
    ]
    return (
        carrier,
        worker(env, queue, workflows=[EnrollmentWorkflow, StandInLine, StandInPort], activities=activities),
        queue,
    )


async def update_with_start(env, order: EnrollmentOrder, queue: str) -> tuple[EnrollmentResult, Any]:
    """As the API asks: the `customers` update with start."""
    start = WithStartWorkflowOperation(
        EnrollmentWorkflow.run,
        order,
        id=order.order_id,
        task_queue=queue,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        search_attributes=enrollment_search_attributes(order),
    )
    answer = await env.client.execute_update_with_start_workflow(
        EnrollmentWorkflow.customers, start_workflow_operation=start
    )
    return answer, await start.workflow_handle()


async def workflows_started_by(env, order_id: str) -> list[str]:
    """The ids of the workflows the order started (its children), once it has completed."""
    return [listed.id async for listed in env.client.list_workflows(f'ParentWorkflowId = "{order_id}"')]


async def started_with(env, workflow_id: str, kind: type) -> Any:
    """The input a line's workflow was started with, as its history records it (its order starts it a moment
    after the update's answer)."""
    handle = env.client.get_workflow_handle(workflow_id)

    async def started() -> bool:
        try:
            await handle.describe()
        except RPCError:
            return False
        return True

    await eventually(started, what=f"{workflow_id} started")
    history = await handle.fetch_history()
    payloads = history.events[0].workflow_execution_started_event_attributes.input.payloads
    [start] = await env.client.data_converter.decode(payloads, [kind])
    return start


def by_line(result: EnrollmentResult) -> dict[str, tuple[str, str | None]]:
    """By the names the test gave its lines."""
    return {plan.enrollment_id[RUN:]: (plan.status, plan.mdn) for plan in result.lines}


async def test_every_line_is_activated_at_once_and_a_line_activated_so_has_no_workflow_of_its_own(temporal_env):
    order = order_of("E1", "E2", "E3")
    carrier, running, queue = enroll(temporal_env, order)
    async with running:
        answer, handle = await update_with_start(temporal_env, order, queue)
        result = await handle.result()
        children = await workflows_started_by(temporal_env, order.order_id)
    assert by_line(answer) == {line_id[RUN:]: (LineStatus.ACTIVE, mdn_of(line_id)) for line_id in order.enrollment_ids}
    assert result == answer
    assert carrier.most_at_once == 3  # the lines' activations run together
    # Each activation keyed as the line's own workflow would key it: a late answer cannot make a second line.
    assert sorted(call.idempotency_key for (call,) in carrier.calls.of("activation")) == [
        f"line-{line_id}:activate:0" for line_id in order.enrollment_ids
    ]
    assert children == []  # done in the order: no line-<id> (the UI finds the lines by the order's attributes)
    for line_id in order.enrollment_ids:
        with pytest.raises(RPCError) as missing:
            await temporal_env.client.get_workflow_handle(f"line-{line_id}").describe()
        assert missing.value.status == RPCStatusCode.NOT_FOUND


async def test_the_order_carries_its_lines_ids_and_statuses_for_the_temporal_ui(temporal_env):
    order = order_of("E1", "E2SIM", "E3LATER")
    _, running, queue = enroll(temporal_env, order)
    async with running:
        _, handle = await update_with_start(temporal_env, order, queue)
        await handle.result()
        attributes = (await handle.describe()).typed_search_attributes
        found = {
            query: [listed.id async for listed in temporal_env.client.list_workflows(query)]
            for query in (
                f'EnrollmentIds = "{id_of(order, "E3LATER")}"',
                f'LineStatuses = "{id_of(order, "E1")}:ACTIVE" AND LineStatuses = "STUCK"',
                f'Mdns = "{mdn_of(id_of(order, "E1"))}"',
                line_query(id_of(order, "E1")),
            )
        }
    assert attributes.get(ENROLLMENT_IDS) == order.enrollment_ids
    assert attributes.get(LINE_STATUSES) == [
        "ACTIVE",
        "STUCK",
        "CUSTOMER_CREATED",
        f"{id_of(order, 'E1')}:ACTIVE",
        f"{id_of(order, 'E2SIM')}:STUCK",
        f"{id_of(order, 'E3LATER')}:CUSTOMER_CREATED",
    ]
    assert attributes.get(MDNS) == [mdn_of(id_of(order, "E1"))]  # the one number its first tries gave
    assert found == {query: [order.order_id] for query in found}  # each finds the order, and only it


async def test_a_carrier_that_does_not_answer_in_time_leaves_the_line_activating_in_its_own_workflow(temporal_env):
    order = order_of("E1", "E2DOWN")
    carrier, running, queue = enroll(temporal_env, order)
    async with running:
        began = await temporal_env.get_current_time()
        answer, _ = await update_with_start(temporal_env, order, queue)
        answered = await temporal_env.get_current_time()
        start = await started_with(temporal_env, f"line-{id_of(order, 'E2DOWN')}", LineStart)
    assert by_line(answer) == {
        "E1": (LineStatus.ACTIVE, mdn_of(id_of(order, "E1"))),
        "E2DOWN": (LineStatus.ACTIVATING, None),
    }
    assert (answered - began).total_seconds() <= PACING.sync_wait_seconds + 1  # within the create's wait
    assert len(carrier.calls.of("activation")) > 2  # retried within the wait…
    assert (start.plan.status, start.stuck) == (LineStatus.ACTIVATING, None)  # …and left to the line's workflow


async def test_a_refused_activation_starts_its_line_stuck_and_the_line_outlives_the_order(temporal_env):
    order = order_of("E1", "E2SIM")
    carrier, running, queue = enroll(temporal_env, order)
    async with running:
        answer, handle = await update_with_start(temporal_env, order, queue)
        await handle.result()
        start = await started_with(temporal_env, f"line-{id_of(order, 'E2SIM')}", LineStart)
        stuck = temporal_env.client.get_workflow_handle_for(StandInLine.run, f"line-{id_of(order, 'E2SIM')}")
        still = (await stuck.describe()).status
        await stuck.signal("retry")
        retried = await stuck.result()
    assert by_line(answer)["E2SIM"] == (LineStatus.STUCK, None)
    assert len(carrier.calls.of("activation")) == 2  # a refusal is not retried
    assert start.stuck is not None and (start.stuck.key_round, start.stuck.error) == (1, "915 SIM already in use")
    assert still == WorkflowExecutionStatus.RUNNING  # the line outlives its completed order…
    assert retried.status == LineStatus.ACTIVE  # …so support may still retry it


async def test_a_portin_line_is_submitted_at_once_and_followed_by_its_port_workflow(temporal_env):
    order = order_of("E1PORT", "E2NOTELIGIBLEPORT")
    carrier, running, queue = enroll(temporal_env, order)
    async with running:
        answer, handle = await update_with_start(temporal_env, order, queue)
        await handle.result()
        ported = await started_with(temporal_env, f"port-{id_of(order, 'E1PORT')}", PortStart)
        refused = await started_with(temporal_env, f"port-{id_of(order, 'E2NOTELIGIBLEPORT')}", PortStart)
    assert by_line(answer) == {
        "E1PORT": (LineStatus.PORT_PENDING, None),
        "E2NOTELIGIBLEPORT": (LineStatus.PORT_REJECTED, None),
    }
    assert {call.idempotency_key for (call,) in carrier.calls.of("submit_and_record")} == {
        f"port-{id_of(order, 'E1PORT')}:port:0",
        f"port-{id_of(order, 'E2NOTELIGIBLEPORT')}:port:0",
    }
    assert ported.submitted == PortSubmission(f"PRT-{id_of(order, 'E1PORT')}", "2026-11-25T00:00:00+00:00")
    assert refused.submitted is None and refused.view.status == "REJECTED"  # the port's workflow records it


async def test_a_line_waiting_for_activation_has_no_carrier_step_until_it_is_asked(temporal_env):
    order = order_of("E1LATER")
    carrier, running, queue = enroll(temporal_env, order)
    async with running:
        answer, _ = await update_with_start(temporal_env, order, queue)
        start = await started_with(temporal_env, f"line-{id_of(order, 'E1LATER')}", LineStart)
    assert carrier.calls.of("activation") == []
    assert by_line(answer) == {"E1LATER": (LineStatus.CUSTOMER_CREATED, None)}
    assert start.plan.activation_later
