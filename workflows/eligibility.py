"""NladCheckWorkflow: asks NLAD for nlad_etc_check and records the answer for tpiv_listing, under the lookup
policy's budget (about 10 s) the waiting channel allows."""

from __future__ import annotations

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.eligibility import EligibilityActivities
    from models.eligibility import NladAnswer, NladCheck
    from workflows import policies


@workflow.defn
class NladCheckWorkflow:
    @workflow.run
    async def run(self, check: NladCheck) -> NladAnswer:
        # One activity asks and records; the change from two needed no patch: a check lives at most its budget.
        return await workflow.execute_activity_method(
            EligibilityActivities.check_and_record, check, **policies.lookup(check.budget_seconds)
        )


def nlad_workflow_id(request_id: str) -> str:
    return f"nlad-{request_id}"
