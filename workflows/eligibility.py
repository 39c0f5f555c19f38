"""Request/response workflows for the eligibility and device checks a channel waits on: the outside call
under the LOOKUP budget (about 10 s), visible in the Temporal UI."""

from __future__ import annotations

from typing import Any

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.carrier import CarrierActivities
    from activities.eligibility import NladActivities
    from models.messages import DeviceQuery, NladAnswer, NladCheck, NladOutcome
    from workflows import policies


@workflow.defn
class NladCheckWorkflow:
    """Asks NLAD, then records the answer (outcome, ZIP, initials) for tpiv_listing."""

    @workflow.run
    async def run(self, check: NladCheck) -> NladAnswer:
        answer = await workflow.execute_activity_method(NladActivities.etc_check, check, **policies.LOOKUP)
        # Under the same bounded budget: the channel is still waiting for the answer.
        outcome = NladOutcome(check, answer.result)
        await workflow.execute_activity_method(NladActivities.record_check, outcome, **policies.LOOKUP)
        return answer


@workflow.defn
class DeviceCheckWorkflow:
    @workflow.run
    async def run(self, query: DeviceQuery) -> dict[str, Any]:
        method = CarrierActivities.device_compatibility
        return await workflow.execute_activity_method(method, query, **policies.LOOKUP)
