"""Workflows of the support domain. SweepWorkflow, run by the `lineup-sweep` schedule (`<task queue>-sweep`)
every LINEUP_SWEEP_SECONDS, starts the workflows a write-then-start pair left behind (customer intake's
orders, the mail outbox's messages) and purges spent tokens; a workflow started meanwhile by its own request is
found running and left alone. Every worker creates the schedule as it starts, or brings it up to date (the
settings may have changed). And the signal support staff send to a stuck line, shared by `/ops` and the CLI."""

from __future__ import annotations

from collections.abc import Awaitable
from contextlib import suppress
from datetime import timedelta

from temporalio import workflow
from temporalio.client import (
    Client,
    Schedule,
    ScheduleActionStartWorkflow,
    ScheduleAlreadyRunningError,
    ScheduleIntervalSpec,
    ScheduleOverlapPolicy,
    SchedulePolicy,
    ScheduleSpec,
    ScheduleUpdate,
    ScheduleUpdateInput,
)
from temporalio.common import WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError
from temporalio.service import RPCError
from temporalio.workflow import ParentClosePolicy

with workflow.unsafe.imports_passed_through():
    from activities.support import SupportActivities

    # LeftBehind's fields are decoded by their type hints, looked up in the sandbox's own sys.modules.
    from models.messages.enrollment import (
        EnrollmentOrder,  # noqa: F401
        Pacing,
    )
    from models.messages.mail import MailDelivery  # noqa: F401
    from models.messages.support import Sweep, SweepReport
    from models.settings import Settings
    from workflows import policies
    from workflows.enrollment.left_behind import start_options
    from workflows.enrollment.line import LineWorkflow
    from workflows.enrollment.order import EnrollmentWorkflow
    from workflows.ids import line_workflow_id, mail_workflow_id
    from workflows.mail import MailDeliveryWorkflow


@workflow.defn
class SweepWorkflow:
    @workflow.run
    async def run(self, sweep: Sweep) -> SweepReport:
        left = await workflow.execute_activity_method(SupportActivities.left_behind, sweep, **policies.SWEEP)
        enrollments = 0
        for order in left.orders:
            enrollments += await _started(
                workflow.start_child_workflow(
                    EnrollmentWorkflow.run, order, parent_close_policy=ParentClosePolicy.ABANDON, **start_options(order)
                )
            )
        mails = 0
        for mail in left.mails:
            mails += await _started(
                workflow.start_child_workflow(
                    MailDeliveryWorkflow.run,
                    mail,
                    id=mail_workflow_id(mail.idempotency_key),
                    # A run that failed or was terminated may start again; one that completed has done its work.
                    id_reuse_policy=WorkflowIDReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
                    parent_close_policy=ParentClosePolicy.ABANDON,
                )
            )
        purged = await workflow.execute_activity_method(SupportActivities.purge_tokens, sweep, **policies.SWEEP)
        return SweepReport(enrollments, mails, purged)


async def _started(start: Awaitable[object]) -> int:
    """1 when the workflow was started here, 0 when it runs (or ran to its end) already."""
    try:
        await start
    except WorkflowAlreadyStartedError:
        return 0
    return 1


def sweep_schedule_id(settings: Settings) -> str:
    """`lineup-sweep` by default: named after the task queue, as deployments sharing a namespace are."""
    return f"{settings.temporal.task_queue}-sweep"


def sweep_schedule(settings: Settings) -> Schedule:
    sweep = Sweep(
        settings.sweep.grace_seconds,
        settings.auth.token_retention_hours,
        Pacing.of(settings),
        proof_retention_days=settings.auth.proof_retention_days,
    )
    return Schedule(
        action=ScheduleActionStartWorkflow(
            SweepWorkflow.run, sweep, id=sweep_schedule_id(settings), task_queue=settings.temporal.task_queue
        ),
        spec=ScheduleSpec(intervals=[ScheduleIntervalSpec(every=timedelta(seconds=settings.sweep.interval_seconds))]),
        # A sweep still running when the next is due makes the next unnecessary.
        policy=SchedulePolicy(overlap=ScheduleOverlapPolicy.SKIP),
    )


async def ensure_sweep_schedule(client: Client, settings: Settings) -> None:
    """Every worker does this as it starts, so the last one started sets the interval; 0 s removes the schedule."""
    if settings.sweep.interval_seconds <= 0:
        with suppress(RPCError):  # there was none
            await client.get_schedule_handle(sweep_schedule_id(settings)).delete()
        return
    schedule = sweep_schedule(settings)
    try:
        await client.create_schedule(sweep_schedule_id(settings), schedule)
    except ScheduleAlreadyRunningError:

        def replace(_: ScheduleUpdateInput) -> ScheduleUpdate:
            return ScheduleUpdate(schedule=schedule)

        await client.get_schedule_handle(sweep_schedule_id(settings)).update(replace)


async def retry_line(client: Client, enrollment_id: str) -> None:
    await client.get_workflow_handle(line_workflow_id(enrollment_id)).signal(LineWorkflow.retry)
