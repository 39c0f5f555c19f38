"""TaxRegistrationWorkflow (`taxreg-<calc_id>`, issue 27, finding 15): a tax calculation make_payment quoted from
held rates while the carrier's tax service was down, registered at the carrier when it is back, however long that
takes. The activity registers under the payment's idempotency key, so the carrier registers it once (the same
CALCID for every retry, and for a collection that registers it first); a calculation already registered is not
registered again."""

from __future__ import annotations

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.payment import PaymentActivities
    from models.messages.payment import TaxRegistrationJob
    from workflows import policies


@workflow.defn
class TaxRegistrationWorkflow:
    @workflow.run
    async def run(self, job: TaxRegistrationJob) -> str:
        """The carrier's calc id for it."""
        return await workflow.execute_activity_method(
            PaymentActivities.register_held_tax, job, **policies.TAX_REGISTRATION
        )
