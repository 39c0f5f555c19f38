"""Records the workflow histories test_replay replays: `make histories`, or
`python -m tests.support.record_histories [FLOW ...]` for some of history_flows.FLOWS only.

Each flow runs against the Temporal dev server and the sandbox (tests.support), through the API, on a Stack
of its own; the histories it keeps are written to tests/workflows/histories/<name>.json with
`WorkflowHistory.to_json()`. A history is written only if it replays with the current code and carries no
customer data. Re-record only for a workflow that cannot still be running anywhere: docs/reliability.md,
"Changing a workflow safely"."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import sys
import tempfile
from pathlib import Path

from temporalio.client import WorkflowExecutionStatus, WorkflowHistory
from temporalio.worker import Replayer

from bench.ports import free_port
from tests.support.databases import sqlite_template
from tests.support.history_flows import FLOWS, customer_data_in
from tests.support.keys import encrypting_converter
from tests.support.stack import Stack
from tests.support.temporal import dev_server, sandbox_server
from workflows.registry import WORKFLOWS

HISTORIES = Path(__file__).resolve().parents[1] / "workflows" / "histories"  # beside test_replay, which replays them
WAIT_SECONDS = 60.0


class Recording:
    """The Recorder a flow gets (history_flows.Recorder): finds and keeps histories on its Stack's queue."""

    def __init__(self, stack: Stack) -> None:
        self.stack = stack
        self.kept: dict[str, str] = {}

    async def find(self, workflow_type: str, prefix: str = "") -> str:
        """The id of the one workflow of `workflow_type` (whose id starts with `prefix`) on this queue."""
        queue = self.stack.app.state.settings.temporal.task_queue
        query = f'TaskQueue = "{queue}" AND WorkflowType = "{workflow_type}"'
        ids: set[str] = set()
        for _ in range(100):  # visibility is eventually consistent
            ids = {w.id async for w in self.stack.env.client.list_workflows(query) if w.id.startswith(prefix)}
            if len(ids) == 1:
                return ids.pop()
            await asyncio.sleep(0.1)
        raise AssertionError(f"expected one {workflow_type} {prefix}… on {queue}, found {sorted(ids)}")

    async def keep(self, name: str, workflow_id: str, *, closed: bool) -> None:
        """The history once the workflow has completed (`closed`), else once no workflow task is pending."""
        if name in self.kept:
            raise AssertionError(f"history {name} kept twice")
        handle = self.stack.env.client.get_workflow_handle(workflow_id)
        deadline = asyncio.get_running_loop().time() + WAIT_SECONDS
        while True:
            described = await handle.describe()
            if closed and described.status not in (None, WorkflowExecutionStatus.RUNNING):
                assert described.status == WorkflowExecutionStatus.COMPLETED, (workflow_id, described.status)
                break
            if not closed and not described.raw_description.HasField("pending_workflow_task"):
                break
            assert asyncio.get_running_loop().time() < deadline, f"{workflow_id} did not settle for {name}"
            await asyncio.sleep(0.1)
        self.kept[name] = (await handle.fetch_history()).to_json()


async def record(names: list[str], directory: Path, template: Path) -> dict[str, str]:
    kept: dict[str, str] = {}
    smtp_port = free_port()
    async with (
        dev_server() as env,
        sandbox_server(directory / "sandbox", smtp_port=smtp_port, port_complete_seconds=4) as sandbox_url,
    ):
        for name in names:
            flow, overrides = FLOWS[name]
            data_dir = directory / name
            data_dir.mkdir()
            shutil.copyfile(template, data_dir / "lineup.db")
            url = f"sqlite+aiosqlite:///{data_dir / 'lineup.db'}"
            async with Stack.running(data_dir, url, env, sandbox_url, smtp_port=smtp_port, **overrides) as stack:
                recording = Recording(stack)
                await flow(recording)
            print(f"recorded {name}: {', '.join(recording.kept)}", flush=True)
            kept.update(recording.kept)
    return kept


def workflow_id_of(history_json: str, default: str) -> str:
    """The id the history's workflow ran under (the started event names it), for the replayer's context."""
    started = WorkflowHistory.from_json(default, history_json).events[0].workflow_execution_started_event_attributes
    return started.workflow_id or default


async def check(kept: dict[str, str]) -> None:
    """Refuses to write a history that does not replay now (a flaky recording) or that carries customer data."""
    replayer = Replayer(workflows=WORKFLOWS, data_converter=encrypting_converter())
    for name, history_json in kept.items():
        await replayer.replay_workflow(WorkflowHistory.from_json(workflow_id_of(history_json, name), history_json))
        if found := customer_data_in(history_json):
            raise SystemExit(f"history {name} carries customer data: {found}")


def main(argv: list[str]) -> int:
    names = argv or list(FLOWS)
    if unknown := [name for name in names if name not in FLOWS]:
        print(f"unknown flow(s) {unknown}; known: {', '.join(FLOWS)}", file=sys.stderr)
        return 2
    for variable in [name for name in os.environ if name.startswith("LINEUP_")]:
        del os.environ[variable]  # the flows set what they need; a developer's settings must not change them
    logging.basicConfig(level=logging.WARNING)
    # The flows fail carrier calls, the relay and a payment write on purpose: their tracebacks are expected.
    for noisy in ("lineup.access", "temporalio.activity"):
        logging.getLogger(noisy).setLevel(logging.CRITICAL)
    with tempfile.TemporaryDirectory(prefix="lineup-histories-") as temporary:
        directory = Path(temporary)
        template = sqlite_template(directory)  # before the event loop: it runs one of its own
        kept = asyncio.run(record(names, directory, template))
        asyncio.run(check(kept))
    HISTORIES.mkdir(exist_ok=True)
    for name, history_json in sorted(kept.items()):
        (HISTORIES / f"{name}.json").write_text(history_json + "\n")
    print(f"wrote {len(kept)} histories to {HISTORIES}", flush=True)
    return 0


if __name__ == "__main__":
    code = main(sys.argv[1:])
    sys.stdout.flush()
    os._exit(code)  # sdk-python#300: the interpreter may abort at exit after a Temporal server shut down
