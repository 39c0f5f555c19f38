"""The webhooks domain's workflows. WebhookDispatchWorkflow (one per task queue, `<task queue>-webhooks`, started
by every worker as it starts) finds the deliveries the event log queued and starts a WebhookDeliveryWorkflow for
each (`webhook-<endpoint id>-<event id>-<round>`), which retries its POST under the webhook policy for up to 72
hours. Both carry ids only; the body is built from the event row at each attempt, the same bytes every time."""

from __future__ import annotations

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
            for job in jobs:
                with suppress(WorkflowAlreadyStartedError):  # a look before this one started it
                    await workflow.start_child_workflow(
                        WebhookDeliveryWorkflow.run,
                        job,
                        id=delivery_workflow_id(job),
                        parent_close_policy=ParentClosePolicy.ABANDON,
                        id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
                    )
            if jobs:
                await workflow.execute_local_activity_method(WebhookActivities.mark_taken, jobs, **policies.STORE)
            if history_full(dispatch.history_events):
                break
        workflow.continue_as_new(dispatch)


@workflow.defn
class WebhookDeliveryWorkflow:
    @workflow.run
    async def run(self, job: DeliveryJob) -> str:
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
