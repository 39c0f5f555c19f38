"""Deploy safety for long-lived workflows (issue 12, finding 9): every history recorded in
tests/workflows/histories (`make histories`) replays with the current workflow code, without a server, so a
change that would break a running workflow (an activity added, removed or reordered, a timer moved) fails
here first. Every registered workflow type has a recorded history, and no history carries customer data.
How to change a workflow safely: docs/reliability.md, "Changing a workflow safely"."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from temporalio import workflow
from temporalio.client import WorkflowHistory
from temporalio.worker import Replayer, UnsandboxedWorkflowRunner

from tests.support.history_flows import customer_data_in
from tests.support.keys import encrypting_converter
from tests.support.record_histories import HISTORIES, workflow_id_of
from workflows.registry import WORKFLOWS

RECORDED = sorted(HISTORIES.glob("*.json"))


def history(path: Path) -> WorkflowHistory:
    text = path.read_text()
    return WorkflowHistory.from_json(workflow_id_of(text, path.stem), text)


def workflow_type(path: Path) -> str:
    return history(path).events[0].workflow_execution_started_event_attributes.workflow_type.name


@pytest.mark.parametrize("path", RECORDED, ids=lambda path: path.stem)
async def test_a_recorded_history_replays_with_the_current_workflow_code(path):
    await Replayer(workflows=WORKFLOWS, data_converter=encrypting_converter()).replay_workflow(history(path))


def test_every_registered_workflow_type_has_a_recorded_history():
    # No workflow is given a name of its own (`@workflow.defn` bare), so its type is its class's name.
    registered = {cls.__name__ for cls in WORKFLOWS}
    recorded = {workflow_type(path) for path in RECORDED}
    assert registered - recorded == set(), "record their histories: `make histories` (docs/reliability.md)"
    assert recorded <= registered  # a history of a workflow no longer registered would replay nothing


@pytest.mark.parametrize("path", RECORDED, ids=lambda path: path.stem)
def test_a_recorded_history_carries_no_customer_data(path):
    assert customer_data_in(path.read_text()) == []


@workflow.defn(name="NladCheckWorkflow")
class RecordsBeforeAsking:
    """NladCheckWorkflow with its two activities swapped: what a careless edit would deploy."""

    @workflow.run
    async def run(self, check: dict[str, Any]) -> None:
        timeout = timedelta(seconds=10)
        await workflow.execute_activity("record_check", check, start_to_close_timeout=timeout)
        await workflow.execute_activity("etc_check", check, start_to_close_timeout=timeout)


async def test_a_reordered_activity_fails_the_replay():
    """The check itself can fail: the recorded NLAD check does not replay with the activities swapped."""
    # Unsandboxed: the sandbox would re-import this test module and what it imports (the Stack's httpx).
    replayer = Replayer(
        workflows=[RecordsBeforeAsking],
        workflow_runner=UnsandboxedWorkflowRunner(),
        data_converter=encrypting_converter(),  # the recorded payloads are sealed, as every history's are
    )
    with pytest.raises(workflow.NondeterminismError):
        await replayer.replay_workflow(history(HISTORIES / "nlad_check.json"))
