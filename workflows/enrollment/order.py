"""EnrollmentWorkflow: one per create_customer_prepaid_multiline request. Creates every line's customer
record, then runs one LineWorkflow child per line in parallel. The API talks to it with update-with-start:
the update answers once the customer records exist, with the MDNs the carrier gave within the wait."""

from __future__ import annotations

import asyncio
import contextlib

from temporalio import workflow
from temporalio.common import SearchAttributePair, TypedSearchAttributes, WorkflowIDReusePolicy
from temporalio.workflow import ParentClosePolicy

with workflow.unsafe.imports_passed_through():
    from activities.enrollment import EnrollmentActivities
    from models.messages.enrollment import (
        LINE_PROGRESS_SIGNAL,
        EnrollmentOrder,
        EnrollmentResult,
        LinePlan,
        LineProgress,
        LineStart,
        SyncWait,
        straight_to_the_carrier,
    )
    from models.statuses import IN_FLIGHT, LineStatus
    from workflows import policies
    from workflows.enrollment.line import LineWorkflow
    from workflows.ids import line_workflow_id
    from workflows.search_attributes import (
        ACTIVATION_TYPE,
        AGENT_ID,
        CARRIER,
        ENROLLMENT_ID,
        LINE_STATUS,
        PARENT_ENROLLMENT_ID,
    )


# Every line's child started in one workflow task (they used to start one task after another).
START_LINES_TOGETHER = "start-lines-together"


def enrollment_search_attributes(order: EnrollmentOrder) -> TypedSearchAttributes:
    """What operations staff filter an enrollment by in the Temporal UI (whoever starts it: intake or sweep)."""
    return TypedSearchAttributes(
        [
            SearchAttributePair(PARENT_ENROLLMENT_ID, order.parent_enrollment_id),
            SearchAttributePair(AGENT_ID, order.agent_id or ""),
        ]
    )


def _shown_status(plan: LinePlan) -> str:
    """The line's status as the Temporal UI first shows it: a new activation goes straight to the carrier in
    one activity (LineStart.one_step), so it is ACTIVATING from its start, with no upsert of its own."""
    return LineStatus.ACTIVATING if straight_to_the_carrier(plan) else plan.status


@workflow.defn
class EnrollmentWorkflow:
    def __init__(self) -> None:
        self._plans: dict[str, LinePlan] = {}
        self._progress: dict[str, LineProgress] = {}
        self._customers_ready = False

    @workflow.run
    async def run(self, order: EnrollmentOrder) -> EnrollmentResult:
        plans = await workflow.execute_local_activity_method(
            EnrollmentActivities.create_customers, order, **policies.STORE
        )
        self._plans = {plan.enrollment_id: plan for plan in plans}
        for plan in plans:
            self._progress.setdefault(
                plan.enrollment_id, LineProgress(plan.enrollment_id, plan.status, plan.mdn, plan.msid, plan.msl)
            )
        self._customers_ready = True
        if workflow.patched(START_LINES_TOGETHER):
            children = list(await asyncio.gather(*(self._start_line(order, plan) for plan in plans)))
        else:  # histories from before: each start waited for its own workflow task
            children = [await self._start_line(order, plan) for plan in plans]
        await asyncio.gather(*(self._follow(child) for child in children))
        await workflow.wait_condition(workflow.all_handlers_finished)  # a waiting caller gets its answer
        return self._result()

    async def _start_line(
        self, order: EnrollmentOrder, plan: LinePlan
    ) -> workflow.ChildWorkflowHandle[LineWorkflow, LineProgress]:
        attributes = TypedSearchAttributes(
            [
                SearchAttributePair(ENROLLMENT_ID, plan.enrollment_id),
                SearchAttributePair(PARENT_ENROLLMENT_ID, order.parent_enrollment_id),
                SearchAttributePair(AGENT_ID, order.agent_id or ""),
                SearchAttributePair(ACTIVATION_TYPE, plan.activation_type),
                SearchAttributePair(CARRIER, plan.carrier or ""),
                SearchAttributePair(LINE_STATUS, _shown_status(plan)),
            ]
        )
        start = LineStart(
            plan,
            order.order_id,
            order.parent_enrollment_id,
            order.vendor_code,
            order.agent_id,
            order.pacing,
            one_step=True,
        )
        return await workflow.start_child_workflow(
            LineWorkflow.run,
            start,
            id=line_workflow_id(plan.enrollment_id),
            search_attributes=attributes,
            # A line outlives a terminated enrollment: support may still need to retry it.
            parent_close_policy=ParentClosePolicy.ABANDON,
            id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
            task_timeout=policies.WORKFLOW_TASK_TIMEOUT,
        )

    async def _follow(self, child: workflow.ChildWorkflowHandle[LineWorkflow, LineProgress]) -> None:
        """A line's final progress, as soon as it ends: lines no longer signal the status they end with."""
        progress = await child
        self._progress[progress.enrollment_id] = progress

    @workflow.signal(name=LINE_PROGRESS_SIGNAL)
    def line_progress(self, progress: LineProgress) -> None:
        self._progress[progress.enrollment_id] = progress

    @workflow.update
    async def customers(self, wait: SyncWait) -> EnrollmentResult:
        """Answers once every line has its customer record, after at most `wait` more for the carrier."""
        await workflow.wait_condition(lambda: self._customers_ready)
        # Lines still activating when the wait is over answer with null MDNs and keep going.
        with contextlib.suppress(TimeoutError):
            await workflow.wait_condition(self._settled, timeout=wait.seconds)
        return self._result()

    @workflow.query
    def status(self) -> EnrollmentResult:
        return self._result()

    def _settled(self) -> bool:
        return all(p.status not in IN_FLIGHT for p in self._progress.values())

    def _result(self) -> EnrollmentResult:
        lines = []
        for enrollment_id, plan in self._plans.items():
            now = self._progress[enrollment_id]
            lines.append(
                LinePlan(
                    plan.enrollment_id,
                    plan.customer_id,
                    plan.cust_id,
                    plan.enrollment_type,
                    plan.activation_type,
                    plan.activation_later,
                    plan.invoice_number,
                    plan.carrier,
                    now.status,
                    now.mdn,
                    now.msid,
                    now.msl,
                )
            )
        return EnrollmentResult(lines)
