"""The every-workflow guard's recording (tests/support/workflow_runs.py): a workflow run on the time-skipping
server is recorded by its type; one only registered with a worker is not."""

from __future__ import annotations

from temporalio import workflow

from tests.support.alone import fresh_queue, worker
from tests.support.workflow_runs import RAN


@workflow.defn(name="GuardProbeRun")
class GuardProbeRun:
    @workflow.run
    async def run(self) -> str:
        return "ran"


@workflow.defn(name="GuardProbeIdle")
class GuardProbeIdle:
    @workflow.run
    async def run(self) -> str:
        return "never started"


async def test_a_workflow_run_on_the_time_skipping_server_is_recorded_and_one_only_registered_is_not(time_skipping):
    queue = fresh_queue("guard")
    async with worker(time_skipping, queue, workflows=[GuardProbeRun, GuardProbeIdle], activities=[]):
        assert await time_skipping.client.execute_workflow(GuardProbeRun.run, id=queue, task_queue=queue) == "ran"
    assert "GuardProbeRun" in RAN and "GuardProbeIdle" not in RAN
