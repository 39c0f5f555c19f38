"""Stand-ins for workflows, registered under the real workflows' names, so that the workflow under test runs
alone on the time-skipping server with its children scripted. They live here, not in the test modules: the
workflow sandbox imports a workflow's module afresh, and a test module comes through pytest's assertion
rewriting, which fails inside the sandbox now and then (CPython 3.11's "AST constructor recursion depth
mismatch")."""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from models.enrollment.lines import EnrollmentOrder, LineProgress, LineStart, LineStatus
    from models.mail import MailDelivery, MailSent
    from models.porting import PortStart, PortView

SLOW = timedelta(hours=1)  # how long the carrier takes over a line whose id says SLOW


def mdn_of(enrollment_id: str) -> str:
    return f"404{sum(map(ord, enrollment_id)) % 10_000_000:07d}"


@workflow.defn(name="LineWorkflow")
class StandInLine:
    """Ends at once with the line as its order left it; a STUCK one first waits for support's retry."""

    def __init__(self) -> None:
        self._retried = False

    @workflow.run
    async def run(self, start: LineStart) -> LineProgress:
        plan = start.plan
        if start.stuck is not None:
            await workflow.wait_condition(lambda: self._retried)
            return LineProgress(plan.enrollment_id, LineStatus.ACTIVE, mdn_of(plan.enrollment_id), "msid", "123456")
        return LineProgress(plan.enrollment_id, plan.status, plan.mdn, plan.msid, plan.msl)

    @workflow.signal
    def retry(self) -> None:
        self._retried = True


@workflow.defn(name="PortInWorkflow")
class StandInPort:
    """Ends at once with the port as its order left it."""

    @workflow.run
    async def run(self, start: PortStart) -> PortView:
        return start.view or PortView("SUBMITTED")


@workflow.defn(name="EnrollmentWorkflow")
class StandInEnrollment:
    """Runs until told to finish, as an order's lines may for days."""

    def __init__(self) -> None:
        self._finish = False

    @workflow.run
    async def run(self, order: EnrollmentOrder) -> str:
        await workflow.wait_condition(lambda: self._finish)
        return order.order_id

    @workflow.signal
    def finish(self) -> None:
        self._finish = True


@workflow.defn(name="MailDeliveryWorkflow")
class StandInMail:
    """Sent at once; a message whose key says FAIL is refused for good."""

    @workflow.run
    async def run(self, delivery: MailDelivery) -> MailSent:
        if "FAIL" in delivery.idempotency_key:
            raise ApplicationError("550 Mailbox does not exist", non_retryable=True)
        return MailSent(f"<{delivery.idempotency_key}>")
