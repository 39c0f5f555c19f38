"""Running a lookup a channel waits on: its typed workflow, started and answered within the lookup budget (and
a Temporal round trip), the carrier's refusal or outage turned into the envelope decisions.md gives."""

from __future__ import annotations

from datetime import timedelta

from temporalio.common import WorkflowIDConflictPolicy
from temporalio.types import MethodAsyncSingleParam, ParamType, ReturnType, SelfType

from dispatch.context import Context


async def run_lookup(
    ctx: Context,
    run: MethodAsyncSingleParam[SelfType, ParamType, ReturnType],
    argument: ParamType,
    *,
    workflow_id: str,
    system: str = "The carrier",
    shared: bool = False,
) -> ReturnType:
    """`shared`: the id names work a repeated request asks for again (a payment's tax registration); a run still
    going is waited for, not refused as already started."""
    client = await ctx.temporal_client()
    task_timeout = timedelta(seconds=ctx.settings.temporal.workflow_task_timeout_seconds)
    conflict = WorkflowIDConflictPolicy.USE_EXISTING if shared else WorkflowIDConflictPolicy.FAIL
    async with ctx.outside(system, within=ctx.lookup_seconds()):
        return await client.execute_workflow(
            run,
            argument,
            id=workflow_id,
            task_queue=ctx.task_queue,
            task_timeout=task_timeout,
            id_conflict_policy=conflict,
        )
