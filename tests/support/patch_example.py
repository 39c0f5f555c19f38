"""A worked example of changing a workflow that may already be running (docs/reliability.md, "Changing a workflow
safely"); not a product workflow: before 1.0 Lineup changes its own workflows and re-records their histories.

GreetingWorkflow's first release ran `greet`. Its second release also runs `record_greeting` after it, behind
`workflow.patched`, so that a run the first release started (its history in
tests/workflows/histories/examples/greeting_first_release.json) replays on the old path, while new runs take
the new one. A release that added the activity without the patch breaks that replay."""

from __future__ import annotations

from datetime import timedelta

from temporalio import activity, workflow

TIMEOUT = timedelta(seconds=10)
RECORD_GREETING = "record-greeting"


@activity.defn
async def greet(name: str) -> str:
    return f"Hello, {name}"


@activity.defn
async def record_greeting(greeting: str) -> None:
    """Where the second release keeps each greeting."""


@workflow.defn(name="GreetingWorkflow", sandboxed=False)
class FirstRelease:
    @workflow.run
    async def run(self, name: str) -> str:
        return await workflow.execute_activity(greet, name, start_to_close_timeout=TIMEOUT)


@workflow.defn(name="GreetingWorkflow", sandboxed=False)
class SecondRelease:
    @workflow.run
    async def run(self, name: str) -> str:
        greeting = await workflow.execute_activity(greet, name, start_to_close_timeout=TIMEOUT)
        if workflow.patched(RECORD_GREETING):  # runs the first release started never record
            await workflow.execute_activity(record_greeting, greeting, start_to_close_timeout=TIMEOUT)
        return greeting


@workflow.defn(name="GreetingWorkflow", sandboxed=False)
class CarelessRelease:
    """The second release without its patch: what must not be deployed while first-release runs exist."""

    @workflow.run
    async def run(self, name: str) -> str:
        greeting = await workflow.execute_activity(greet, name, start_to_close_timeout=TIMEOUT)
        await workflow.execute_activity(record_greeting, greeting, start_to_close_timeout=TIMEOUT)
        return greeting
