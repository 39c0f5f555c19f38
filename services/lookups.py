"""One carrier lookup through LookupWorkflow: the activity named by its method, the answer decoded into its
type, the carrier's refusal or outage turned into the envelope decisions.md gives."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from models.messages.lookup import Lookup
from services.context import Context
from services.temporal import LOOKUP_SECONDS, outside_system
from workflows.lookup import LookupWorkflow
from workflows.policies import WORKFLOW_TASK_TIMEOUT

A = TypeVar("A")
R = TypeVar("R")


async def carrier_lookup(
    ctx: Context, method: Callable[[Any, A], Awaitable[R]], argument: A, *, workflow_id: str, answer: type[R]
) -> R:
    """Runs the LookupActivities `method` on `argument` as workflow `workflow_id` and waits for its answer."""
    name = method.__name__  # activities keep their method's name (@activity.defn without `name`)
    async with outside_system("The carrier", within=LOOKUP_SECONDS):
        # By the workflow's name: the typed form would decode the answer as LookupWorkflow's `Any`.
        found: R = await ctx.temporal.client().execute_workflow(
            LookupWorkflow.__name__, Lookup(name, argument), id=workflow_id, task_queue=ctx.temporal.task_queue,
            result_type=answer, task_timeout=WORKFLOW_TASK_TIMEOUT,
        )  # fmt: skip
    return found
