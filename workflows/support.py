"""The support domain's workflow. SweepWorkflow, run by the `lineup-sweep` schedule (`<task queue>-sweep`, set up
by api.temporal) every LINEUP_SWEEP_SECONDS, starts the workflows a write-then-start pair left behind (customer
intake's orders, the mail outbox's messages) and purges spent tokens; a workflow started meanwhile by its own
request is found running and left alone."""

from __future__ import annotations

from collections.abc import Awaitable

from temporalio import workflow
from temporalio.common import WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError
from temporalio.workflow import ParentClosePolicy

with workflow.unsafe.imports_passed_through():
    from activities.support import SupportActivities

    # LeftBehind's fields are decoded by their type hints, looked up in the sandbox's own sys.modules.
    from models.enrollment.lines import EnrollmentOrder  # noqa: F401
    from models.mail import MailDelivery  # noqa: F401
    from models.support import Sweep, SweepReport
    from workflows import policies
    from workflows.enrollment import EnrollmentWorkflow, start_options
    from workflows.mail import MailDeliveryWorkflow, mail_workflow_id


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
