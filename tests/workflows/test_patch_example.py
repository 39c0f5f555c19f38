"""The worked example of a patch (tests/support/patch_example.py): a history the first release recorded replays
with the patched second release, and fails with a release that changed the path without a patch; a new run of
the second release takes the new path."""

from __future__ import annotations

import secrets

import pytest
from temporalio import workflow
from temporalio.client import WorkflowHistory
from temporalio.worker import Replayer, Worker

from tests.support.patch_example import CarelessRelease, SecondRelease, greet, record_greeting
from tests.support.record_histories import HISTORIES

RECORDED = HISTORIES / "examples" / "greeting_first_release.json"


def first_release_history() -> WorkflowHistory:
    return WorkflowHistory.from_json("greeting-1", RECORDED.read_text())


async def test_a_run_of_the_first_release_replays_with_the_patched_second_release():
    await Replayer(workflows=[SecondRelease]).replay_workflow(first_release_history())


async def test_the_same_change_without_its_patch_fails_the_replay():
    with pytest.raises(workflow.NondeterminismError):
        await Replayer(workflows=[CarelessRelease]).replay_workflow(first_release_history())


async def test_a_new_run_of_the_second_release_takes_the_new_path(time_skipping):
    queue = f"greetings-{secrets.token_hex(4)}"
    async with Worker(
        time_skipping.client, task_queue=queue, workflows=[SecondRelease], activities=[greet, record_greeting]
    ):
        handle = await time_skipping.client.start_workflow(SecondRelease.run, "Pat", id=queue, task_queue=queue)
        assert await handle.result() == "Hello, Pat"
        scheduled = [
            event.activity_task_scheduled_event_attributes.activity_type.name
            async for event in handle.fetch_history_events()
            if event.HasField("activity_task_scheduled_event_attributes")
        ]
    assert scheduled == ["greet", "record_greeting"]
