"""The webhooks domain's workflows. WebhookDispatchWorkflow (one per task queue, `<task queue>-webhooks`, started
by every worker as it starts) finds the deliveries the event log queued, makes their first attempts itself in one
activity, and starts a WebhookDeliveryWorkflow (`webhook-<endpoint id>-<event id>-<round>`) only for each whose
first attempt failed; it retries the POST under the webhook policy for up to 72 hours. Both carry ids only; the
body is built from the event row at each attempt, the same bytes every time.

A look's deliveries (at most LINEUP_WEBHOOK_CONCURRENCY) are POSTed together by one activity: one task round trip
to Temporal for them all, and no workflow at all for a delivery that got through at once. A workflow per delivery,
its start, tasks and activity, cost about as much as the events coming in, and on a loaded machine every
disruption left the deliveries minutes late for good (issue 35, finding 9)."""

from __future__ import annotations

import asyncio
from contextlib import suppress

from temporalio import workflow
from temporalio.common import WorkflowIDReusePolicy
from temporalio.exceptions import ActivityError, WorkflowAlreadyStartedError
from temporalio.workflow import ParentClosePolicy

with workflow.unsafe.imports_passed_through():
    from activities.webhooks import WebhookActivities
    from models.settings import Settings
    from models.webhooks import DeliveryJob, Dispatch
    from workflows import policies
    from workflows.policies import history_full


@workflow.defn
class WebhookDispatchWorkflow:
    @workflow.run
    async def run(self, dispatch: Dispatch) -> None:
        for _ in range(dispatch.rounds):
            jobs = await workflow.execute_activity_method(
                WebhookActivities.queued_deliveries, dispatch, **policies.webhook_poll(dispatch.poll_seconds)
            )
            if jobs:
                failed = await workflow.execute_activity_method(
                    WebhookActivities.first_attempts, jobs, **policies.webhook_first_attempts(jobs[0].timeout_seconds)
                )
                await asyncio.gather(*(self._start(job) for job in failed))
            if history_full(dispatch.history_events):
                break
        workflow.continue_as_new(dispatch)

    async def _start(self, job: DeliveryJob) -> None:
        with suppress(WorkflowAlreadyStartedError):  # started already (a row leaves QUEUED at its first attempt)
            await workflow.start_child_workflow(
                WebhookDeliveryWorkflow.run,
                job,
                id=delivery_workflow_id(job),
                parent_close_policy=ParentClosePolicy.ABANDON,
                id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
            )


@workflow.defn
class WebhookDeliveryWorkflow:
    @workflow.run
    async def run(self, job: DeliveryJob) -> str:
        # The dispatcher made the first attempt, which failed: the first retry comes after the policy's first pause.
        await workflow.sleep(policies.webhook_first_pause(job.max_backoff_seconds))
        try:
            return await workflow.execute_activity_method(
                WebhookActivities.deliver,
                job,
                **policies.webhook(job.give_up_hours, job.max_backoff_seconds, job.timeout_seconds),
            )
        except ActivityError:
            await workflow.execute_local_activity_method(WebhookActivities.give_up, job, **policies.STORE)
            return "FAILED"


def delivery_workflow_id(job: DeliveryJob) -> str:
    """`webhook-<endpoint id>-<event id>-<round>`: unique in the namespace, the same for a repeated start."""
    return f"webhook-{job.key or job.delivery_id}-{job.round}"


def dispatch_workflow_id(settings: Settings) -> str:
    return f"{settings.temporal.task_queue}-webhooks"
