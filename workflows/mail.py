"""The mail domain's workflow, MailDeliveryWorkflow: one per outbox message (id `mail-<idempotency key>`). It
sends through SMTP under the MAIL policy, so an outage delays the message until the relay is back; it carries ids,
never content."""

from __future__ import annotations

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.mail import MailActivities
    from models.mail import MailDelivery, MailSent
    from workflows import policies


@workflow.defn
class MailDeliveryWorkflow:
    @workflow.run
    async def run(self, delivery: MailDelivery) -> MailSent:
        return await workflow.execute_activity_method(MailActivities.send, delivery, **policies.MAIL)


def mail_workflow_id(idempotency_key: str) -> str:
    return f"mail-{idempotency_key}"
