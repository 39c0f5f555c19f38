"""NladCheckWorkflow: asks NLAD for nlad_etc_check and records the answer for tpiv_listing, under the LOOKUP
budget (about 10 s) the waiting channel allows."""

from __future__ import annotations

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.eligibility import EligibilityActivities
    from models.messages.eligibility import NladAnswer, NladCheck, NladOutcome
    from workflows import policies


# The check and its record in one activity; deprecate once no check started before it can still run (a check
# lives at most its LOOKUP budget, ~10 s, so the next release may).
ONE_ACTIVITY = "nlad-check-and-record-in-one-activity"


@workflow.defn
class NladCheckWorkflow:
    """Asks NLAD, then records the answer (outcome, ZIP, initials) for tpiv_listing."""

    @workflow.run
    async def run(self, check: NladCheck) -> NladAnswer:
        if workflow.patched(ONE_ACTIVITY):
            return await workflow.execute_activity_method(
                EligibilityActivities.check_and_record, check, **policies.lookup(check.budget_seconds)
            )
        # Before ONE_ACTIVITY (2026-11-23): replayed for checks started by an older worker.
        answer = await workflow.execute_activity_method(
            EligibilityActivities.etc_check, check, **policies.lookup(check.budget_seconds)
        )
        # Under the same bounded budget: the channel is still waiting for the answer.
        outcome = NladOutcome(check, answer.result)
        await workflow.execute_activity_method(
            EligibilityActivities.record_check, outcome, **policies.lookup(check.budget_seconds)
        )
        return answer
