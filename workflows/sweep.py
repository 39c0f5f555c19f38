"""SweepWorkflow: run by the `lineup-sweep` schedule every LINEUP_SWEEP_SECONDS. Starts the workflows a
write-then-start pair left behind (customer intake's orders, the mail outbox's messages) and purges spent
tokens. A workflow started meanwhile by its own request is found running and left alone."""

from __future__ import annotations

from typing import Any

from temporalio import workflow
from temporalio.common import WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError
from temporalio.workflow import ParentClosePolicy

with workflow.unsafe.imports_passed_through():
    from activities.sweeps import SweepActivities

    # LeftBehind's fields are decoded by their type hints, looked up in the sandbox's own sys.modules.
    from models.messages.enrollment import EnrollmentOrder  # noqa: F401
    from models.messages.mail import MailDelivery  # noqa: F401
    from models.messages.support import Sweep, SweepReport
    from workflows import policies
    from workflows.enrollment import EnrollmentWorkflow
    from workflows.ids import mail_workflow_id
    from workflows.left_behind import start_options
    from workflows.mail_delivery import MailDeliveryWorkflow


@workflow.defn
class SweepWorkflow:
    @workflow.run
    async def run(self, sweep: Sweep) -> SweepReport:
        left = await workflow.execute_activity_method(SweepActivities.left_behind, sweep, **policies.SWEEP)
        enrollments = 0
        for order in left.orders:
            enrollments += await self._start(EnrollmentWorkflow.run, order, **start_options(order))
        mails = 0
        for mail in left.mails:
            mails += await self._start(MailDeliveryWorkflow.run, mail, id=mail_workflow_id(mail.idempotency_key))
        purged = await workflow.execute_activity_method(SweepActivities.purge_tokens, sweep, **policies.SWEEP)
        return SweepReport(enrollments, mails, purged)

    async def _start(self, run: Any, argument: Any, **options: Any) -> int:
        """1 when the workflow was started here, 0 when it runs (or ran to its end) already."""
        # A run that failed or was terminated may start again; one that completed has done its work.
        options.setdefault("id_reuse_policy", WorkflowIDReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY)
        try:
            await workflow.start_child_workflow(run, argument, parent_close_policy=ParentClosePolicy.ABANDON, **options)
        except WorkflowAlreadyStartedError:
            return 0
        return 1
