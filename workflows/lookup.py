"""LookupWorkflow: one carrier lookup a channel waits on (line inquiry, device compatibility, port
validation, the carrier list, a tax estimate), run under the LOOKUP budget (about 10 s) so an
outage answers in time, and visible in the Temporal UI under an id naming the lookup (`device-…`)."""

from __future__ import annotations

from typing import Any

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from models.messages.lookup import Lookup
    from workflows import policies


@workflow.defn
class LookupWorkflow:
    @workflow.run
    async def run(self, lookup: Lookup) -> Any:  # type: ignore[explicit-any]  # each activity's own answer
        # By name: the activity decodes the argument into its own message type, so one workflow serves all.
        return await workflow.execute_activity(lookup.activity, lookup.argument, **policies.LOOKUP)
