"""EsimAssignmentWorkflow (`esim-<enrollment id>`): one line's eSIM profile asked of the carrier, under the
lookup budget a channel waits within; the profile itself is sealed in the line by the activity, so this history
holds ids only."""

from __future__ import annotations

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.esim import EsimActivities
    from models.messages.esim import EsimAssigned, EsimRequest
    from workflows import policies


@workflow.defn
class EsimAssignmentWorkflow:
    @workflow.run
    async def run(self, request: EsimRequest) -> EsimAssigned:
        return await workflow.execute_activity_method(
            EsimActivities.assign_esim_profile, request, **policies.lookup(request.budget_seconds)
        )
