"""Workflows of the devices domain: DeviceCheckWorkflow (`device-<request id>`), the carrier's device
compatibility check a channel waits on, under the lookup budget."""

from __future__ import annotations

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.devices import DeviceActivities
    from models.devices import DeviceQuery, DeviceReply
    from workflows import policies


@workflow.defn
class DeviceCheckWorkflow:
    @workflow.run
    async def run(self, query: DeviceQuery) -> DeviceReply:
        return await workflow.execute_activity_method(
            DeviceActivities.device_compatibility, query, **policies.lookup(query.budget_seconds)
        )


def device_workflow_id(request_id: str) -> str:
    return f"device-{request_id}"
