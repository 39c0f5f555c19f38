"""The baseline workflows: a no-op whose update answers at once (update-with-start), one trivial activity, and a
parent that runs N one-activity children together (the shape of an enrollment: a child per line)."""

from __future__ import annotations

import asyncio
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


@workflow.defn
class FanOutWorkflow:
    @workflow.run
    async def run(self, children: int) -> int:
        prefix = workflow.info().workflow_id
        starts = (
            workflow.start_child_workflow(OneActivityWorkflow.run, str(n), id=f"{prefix}-{n}") for n in range(children)
        )
        started = await asyncio.gather(*starts)
        return len(await asyncio.gather(*started))
