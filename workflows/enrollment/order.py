"""EnrollmentWorkflow: one per create_customer_prepaid_multiline request. In its first workflow task it creates
every line's customer record and tries each line's carrier step (activation, or port submission) at once, in
local activities, within LINEUP_SYNC_WAIT_SECONDS; the API's update-with-start is answered with that. Each
line's life after that (a late carrier, stuck-line retries, waiting for activate_line, following a port) is its
own workflow, started then: LineWorkflow, or PortInWorkflow for a PORTIN line."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import replace
from datetime import timedelta
from typing import TypedDict

from temporalio import workflow
from temporalio.common import SearchAttributePair, TypedSearchAttributes, WorkflowIDReusePolicy
from temporalio.exceptions import ActivityError, ApplicationError, WorkflowAlreadyStartedError
from temporalio.workflow import ParentClosePolicy

with workflow.unsafe.imports_passed_through():
    from activities.enrollment import EnrollmentActivities
    from activities.porting import PortingActivities
    from models.failures import CARRIER_REJECTED
    from models.messages.enrollment import (
        CarrierCall,
        EnrollmentOrder,
        EnrollmentResult,
        LinePlan,
        LineStart,
        LineState,
        StuckState,
    )
    from models.messages.porting import PortFinish, PortStart, PortSubmission, PortView
    from models.statuses import LineStatus, PortStatus
    from workflows import policies
    from workflows.carrier_step import step_key
    from workflows.enrollment.line import LineWorkflow
    from workflows.ids import line_workflow_id, port_workflow_id
    from workflows.porting import PortInWorkflow
    from workflows.search_attributes import AGENT_ID, PARENT_ENROLLMENT_ID, line_attributes


def enrollment_search_attributes(order: EnrollmentOrder) -> TypedSearchAttributes:
    """What operations staff filter an enrollment by in the Temporal UI (whoever starts it: intake or sweep)."""
    return TypedSearchAttributes(
        [
            SearchAttributePair(PARENT_ENROLLMENT_ID, order.parent_enrollment_id),
            SearchAttributePair(AGENT_ID, order.agent_id or ""),
        ]
    )


class ChildOptions(TypedDict):
    search_attributes: TypedSearchAttributes
    parent_close_policy: ParentClosePolicy
    id_reuse_policy: WorkflowIDReusePolicy
    task_timeout: timedelta


class FirstTry:
    """One line's carrier step as the order tried it: the plan as it left it, and what its workflow takes on."""

    def __init__(self, plan: LinePlan) -> None:
        self.plan = plan
        self.stuck: StuckState | None = None
        self.submitted: PortSubmission | None = None


async def _first_try(order: EnrollmentOrder, plan: LinePlan) -> FirstTry:
    """The line's carrier step, tried in local activities within the order's wait (paced by timers between
    attempts): a line waiting for activation (or already active, for a repeated order) has none. A slow or absent
    carrier leaves the line ACTIVATING: its own workflow goes on with the same key, so the carrier never makes two
    lines of one."""
    line = FirstTry(plan)
    if plan.activation_later or plan.status == LineStatus.ACTIVE:
        return line
    porting = plan.activation_type == "PORTIN"
    workflow_id = (port_workflow_id if porting else line_workflow_id)(plan.enrollment_id)
    key = step_key(workflow_id, "port" if porting else "activate", 0)
    call = CarrierCall(plan.enrollment_id, order.vendor_code, key)
    deadline = workflow.now() + timedelta(seconds=order.pacing.sync_wait_seconds)
    for pause in (*policies.FIRST_TRY_PAUSES, None):
        remaining = deadline - workflow.now()
        if remaining < policies.SHORTEST_TRY:  # a busy worker woke past the wait: the line's workflow goes on
            break
        try:
            return await _attempt(line, call, porting=porting, remaining=remaining)
        # A local activity may fail with its error itself, not wrapped in an ActivityError.
        except (ActivityError, ApplicationError) as failure:
            cause = failure.cause if isinstance(failure, ActivityError) else failure
            if isinstance(cause, ApplicationError) and cause.type == CARRIER_REJECTED:
                return await _refused(order, line, cause.message, porting=porting)
        if pause is None or deadline - workflow.now() <= pause:
            break
        await workflow.sleep(pause)
    line.plan = replace(plan, status=LineStatus.ACTIVATING)
    return line


async def _attempt(line: FirstTry, call: CarrierCall, *, porting: bool, remaining: timedelta) -> FirstTry:
    config, plan = policies.first_try(remaining), line.plan
    if porting:
        line.submitted = await workflow.execute_local_activity_method(
            PortingActivities.submit_and_record, call, **config
        )
        line.plan = replace(plan, status=LineStatus.PORT_PENDING)
    else:
        done = await workflow.execute_local_activity_method(EnrollmentActivities.activate_and_record, call, **config)
        line.plan = replace(plan, status=LineStatus.ACTIVE, mdn=done.mdn, msid=done.msid, msl=done.msl)
    return line


async def _refused(order: EnrollmentOrder, line: FirstTry, reason: str, *, porting: bool) -> FirstTry:
    """A refusal is recorded before the answer, so the line's row says what the channel hears."""
    plan = line.plan
    line.stuck = StuckState(workflow.now().isoformat(), 1, reason)
    if porting:  # a port the carrier will not take: rejected for good
        line.plan = replace(plan, status=LineStatus.PORT_REJECTED)
        refusal = PortView(PortStatus.REJECTED, carrier_response=reason)
        finish = PortFinish(plan.enrollment_id, order.vendor_code, refusal)
        await workflow.execute_local_activity_method(PortingActivities.finish_port, finish, **policies.STORE)
    else:
        line.plan = replace(plan, status=LineStatus.STUCK)
        stuck = LineState(plan.enrollment_id, LineStatus.STUCK, reason)
        await workflow.execute_local_activity_method(EnrollmentActivities.set_line_status, stuck, **policies.STORE)
    return line


@workflow.defn
class EnrollmentWorkflow:
    def __init__(self) -> None:
        self._lines: list[FirstTry] = []
        self._ready = False

    @workflow.run
    async def run(self, order: EnrollmentOrder) -> EnrollmentResult:
        # Intake gave every line its customer record; the order tries each line's carrier step at once.
        self._lines = list(await asyncio.gather(*(_first_try(order, plan) for plan in order.lines)))
        self._ready = True  # the update answers in this workflow task, with the lines' workflows' starts
        await asyncio.gather(*(self._start_line(order, line) for line in self._lines))
        await workflow.wait_condition(workflow.all_handlers_finished)
        return self._result()

    async def _start_line(self, order: EnrollmentOrder, line: FirstTry) -> None:
        plan = line.plan
        attributes = line_attributes(plan, parent_enrollment_id=order.parent_enrollment_id, agent_id=order.agent_id)
        # A line outlives its order: support may still need to retry it.
        options = ChildOptions(
            search_attributes=attributes,
            parent_close_policy=ParentClosePolicy.ABANDON,
            id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
            task_timeout=policies.WORKFLOW_TASK_TIMEOUT,
        )
        if plan.activation_type == "PORTIN" and plan.status != LineStatus.ACTIVE:
            # A port the carrier refused at submission: its workflow records the refusal and ends.
            refused = PortView(PortStatus.REJECTED, carrier_response=line.stuck.error) if line.stuck else None
            port = PortStart(
                plan.enrollment_id, order.vendor_code, order.pacing, submitted=line.submitted, view=refused
            )
            with contextlib.suppress(WorkflowAlreadyStartedError):  # the API started it first (a port added at once)
                await workflow.start_child_workflow(
                    PortInWorkflow.run, port, id=port_workflow_id(plan.enrollment_id), **options
                )
            return
        start = LineStart(
            plan,
            order.order_id,
            order.parent_enrollment_id,
            order.vendor_code,
            order.agent_id,
            order.pacing,
            stuck=line.stuck,
        )
        # The API may have started it first, for an activation or a port asked for at once (orchestration.lines).
        with contextlib.suppress(WorkflowAlreadyStartedError):
            await workflow.start_child_workflow(
                LineWorkflow.run, start, id=line_workflow_id(plan.enrollment_id), **options
            )

    @workflow.update
    async def customers(self) -> EnrollmentResult:
        """Answers once every line has its customer record and its carrier step's first try."""
        await workflow.wait_condition(lambda: self._ready)
        return self._result()

    @workflow.query
    def status(self) -> EnrollmentResult:
        return self._result()

    def _result(self) -> EnrollmentResult:
        return EnrollmentResult([line.plan for line in self._lines])
