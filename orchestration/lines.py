"""Reaching a line's workflow from the API before its order may have started it: the order answers the channel
in the same workflow task that starts the lines' workflows, so a channel that asks for an activation (or a port)
at once can be first. The API then starts the workflow itself, with the input the order would give it; whichever
start comes second finds it running (the order's start is refused and ignored)."""

from __future__ import annotations

import contextlib
from datetime import timedelta
from typing import TypedDict

from temporalio.client import Client, WithStartWorkflowOperation
from temporalio.common import TypedSearchAttributes, WorkflowIDConflictPolicy, WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError

from models.messages.enrollment import LineProgress, LineStart, Pacing
from models.settings import Settings
from models.tables.enrollment import Line
from persistence.enrollment import plan_of
from workflows.enrollment.line import LineWorkflow
from workflows.ids import line_workflow_id
from workflows.search_attributes import line_attributes


def line_start(line: Line, *, vendor_code: str, settings: Settings) -> LineStart:
    """The input the line's order gives its workflow, rebuilt from the line's row."""
    return LineStart(
        plan_of(line), line.order_id, line.parent_enrollment_id, vendor_code, line.agent_username, Pacing.of(settings)
    )


class StartOptions(TypedDict):
    id: str
    task_queue: str
    id_conflict_policy: WorkflowIDConflictPolicy
    id_reuse_policy: WorkflowIDReusePolicy
    task_timeout: timedelta
    search_attributes: TypedSearchAttributes


def _options(line: Line, settings: Settings) -> StartOptions:
    return StartOptions(
        id=line_workflow_id(line.enrollment_id),
        task_queue=settings.temporal.task_queue,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
        task_timeout=timedelta(seconds=settings.temporal.workflow_task_timeout_seconds),
        search_attributes=line_attributes(
            plan_of(line), parent_enrollment_id=line.parent_enrollment_id, agent_id=line.agent_username
        ),
    )


def with_line_start(
    line: Line, *, vendor_code: str, settings: Settings
) -> WithStartWorkflowOperation[LineWorkflow, LineProgress]:
    """The line's workflow for an update-with-start: the running one, or one started now."""
    start = line_start(line, vendor_code=vendor_code, settings=settings)
    return WithStartWorkflowOperation(LineWorkflow.run, start, **_options(line, settings))


async def hand_over(client: Client, line: Line, *, vendor_code: str, settings: Settings) -> None:
    """A line waiting for activation is ported in: its workflow (started now if the order has not yet) stops
    waiting for activate_line and ends; the port's workflow activates the line on the ported number."""
    start = line_start(line, vendor_code=vendor_code, settings=settings)
    with contextlib.suppress(WorkflowAlreadyStartedError):  # it ended already: nothing waits to be handed over
        await client.start_workflow(LineWorkflow.run, start, start_signal="hand_over", **_options(line, settings))
