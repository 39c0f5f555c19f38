"""The baseline workflows: a no-op whose update answers at once (update-with-start), and one trivial activity."""

from __future__ import annotations

from datetime import timedelta

from temporalio import activity, workflow


@workflow.defn
class NoopWorkflow:
    @workflow.run
    async def run(self) -> None:
        await workflow.wait_condition(lambda: False, timeout=60)

    @workflow.update
    async def ping(self) -> str:
        return "pong"


@activity.defn
async def trivial(value: str) -> str:
    return value


@workflow.defn
class OneActivityWorkflow:
    @workflow.run
    async def run(self, value: str) -> str:
        return await workflow.execute_activity(trivial, value, start_to_close_timeout=timedelta(seconds=30))
