"""Starting an order that intake stored but never started (Temporal went away between the write and the
start). The sweep starts it as a child workflow, support's retry from a client. Both use these options, so
either one finds a run that the other (or the request itself) started, and neither starts it twice."""

from __future__ import annotations

from datetime import timedelta
from typing import TypedDict

from temporalio.client import Client
from temporalio.common import TypedSearchAttributes, WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError

from models.messages.enrollment import EnrollmentOrder
from workflows import policies
from workflows.enrollment.order import EnrollmentWorkflow, enrollment_search_attributes


class StartOptions(TypedDict):
    id: str
    search_attributes: TypedSearchAttributes
    task_timeout: timedelta
    id_reuse_policy: WorkflowIDReusePolicy


def start_options(order: EnrollmentOrder) -> StartOptions:
    """The options intake would have started the order with, under the same id."""
    return StartOptions(
        id=order.order_id,
        search_attributes=enrollment_search_attributes(order),
        task_timeout=policies.WORKFLOW_TASK_TIMEOUT,
        # A run that failed or was terminated may start again; one that completed has done its work.
        id_reuse_policy=WorkflowIDReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
    )


async def start_order(client: Client, order: EnrollmentOrder, *, task_queue: str) -> bool:
    """True when the order's workflow was started here, False when it is already running (or has ended)."""
    try:
        await client.start_workflow(EnrollmentWorkflow.run, order, task_queue=task_queue, **start_options(order))
    except WorkflowAlreadyStartedError:
        return False
    return True
