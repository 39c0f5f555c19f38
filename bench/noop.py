"""The baseline: a workflow whose update answers at once."""

from __future__ import annotations

from temporalio import workflow


@workflow.defn
class NoopWorkflow:
    @workflow.run
    async def run(self) -> None:
        await workflow.wait_condition(lambda: False, timeout=60)

    @workflow.update
    async def ping(self) -> str:
        return "pong"
