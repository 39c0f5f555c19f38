"""docs/architecture.md's "Files to follow", measured: three real calls through the whole service in one process
(the API over ASGI, a worker, the Temporal dev server and the sandbox), each traced by tests.support.trace.
For each call, the files to read (every file whose code runs for it, in either process, each once: what a reader
opens to know what the call does, models included) and the files executed (each process's own, added up).
`python -m tests.support.files_to_follow` prints the counts and the table, `--write` puts the table in the doc
(`make generate` runs it), `--check` fails while the doc holds another one (`make lint`), as
tests/docs/test_files_to_follow.py does."""

from __future__ import annotations

import asyncio
import shutil
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path

from temporalio.testing import WorkflowEnvironment

from codegen.docs import FILES_SECTION
from models.enrollment.lines import PENDING
from tests.support.builders import body, create, line, new_iccid
from tests.support.databases import sqlite_template
from tests.support.lines import SUPPORT, stored_line
from tests.support.stack import Stack
from tests.support.stuck_lines import stuck_on_a_sim_in_use
from tests.support.temporal import dev_server, sandbox_server
from tests.support.trace import FileTrace, Followed, unrecorded
from tests.support.waiting import eventually
from workflows.enrollment import enrollment_workflow_id

SECTION = FILES_SECTION


async def password_hashed(stack: Stack, enrollment_id: str) -> None:
    """Once the argon2 hash a create leaves to a background task of the API has landed: inside the create's trace
    it is that call's work, and it must not run into the next call's."""

    async def hashed() -> bool:
        return (await stored_line(stack, enrollment_id)).password_hash != PENDING

    await eventually(hashed, what=f"the password of {enrollment_id} hashed")


async def follow_create(stack: Stack, trace: FileTrace) -> Followed:
    """create_customer_prepaid_multiline with one new line: the API, the order's workflow, its activities, the
    carrier and back, until the order's workflow has ended (the line's own workflow, started for the line's life
    after the answer, is not this call's)."""
    enrollment_id = await stack.new_enrollment_id()
    payload = create(enrollment_id, line(enrollment_id))
    order = enrollment_workflow_id(enrollment_id, [enrollment_id])
    token = await stack.token()  # minted before, and the answer read after: neither is the call's work
    with trace.armed(workflow_ids=lambda found: found == order) as followed:
        answered = await stack.post("/customer", payload, token=token)
        await unrecorded(stack.env.client.get_workflow_handle(order).result())
        await unrecorded(password_hashed(stack, enrollment_id))
    assert answered.json()["msg_code"] == "RESTAPI000", answered.json()
    return followed


async def follow_location(stack: Stack, trace: FileTrace) -> Followed:
    """update_location_coordinate: the API and the database only."""
    payload = body("update_location_coordinate")
    token = await stack.token()
    with trace.armed() as followed:
        answered = await stack.post("/agent", payload, token=token)
    assert answered.json()["msg_code"] == "RESTAPI000", answered.json()
    return followed


async def follow_retry(stack: Stack, trace: FileTrace) -> Followed:
    """retry_enrollment of a line stuck on a SIM in use, once support freed the SIM: the API's claim and signal,
    then the line's workflow taking it, its activation and its end."""
    sim = new_iccid()
    stuck = await stuck_on_a_sim_in_use(stack, sim)
    await password_hashed(stack, stuck)  # its create's, before the retry is traced
    await stack.sandbox_post("/sandbox/carrier/release-sim", {"iccid": sim})
    payload = body("retry_enrollment", enrollment_id=stuck, **SUPPORT)
    token = await stack.token()
    with trace.armed(workflow_ids=lambda found: found == f"line-{stuck}") as followed:
        answered = await stack.post("/ops", payload, token=token)
        await unrecorded(stack.env.client.get_workflow_handle(f"line-{stuck}").result())
    assert answered.json()["msg_code"] == "RESTAPI000", answered.json()
    return followed


CALLS: dict[str, Callable[[Stack, FileTrace], Awaitable[Followed]]] = {
    "`create_customer_prepaid_multiline`, one line, to the carrier and back": follow_create,
    "`update_location_coordinate`": follow_location,
    "a support retry of a stuck line (`/ops` `retry_enrollment`), to its activation": follow_retry,
}


async def measure(
    data_dir: Path, db_url: str, env: WorkflowEnvironment, sandbox_url: str, smtp_port: int
) -> dict[str, Followed]:
    """Each call of CALLS traced on a stack of its own making: the worker's threads must start under the hook."""
    trace = FileTrace()
    with trace.installed():
        # The create answers with the carrier's MDN however slow a busy machine makes the carrier: the same path.
        async with Stack.running(
            data_dir, db_url, env, sandbox_url, smtp_port=smtp_port, sync_wait_seconds=60.0
        ) as stack:
            return {what: await follow(stack, trace) for what, follow in CALLS.items()}


def _files(names: list[str]) -> str:
    return " → ".join(f"`{name}`" for name in names) or "none"


def table(measured: dict[str, Followed]) -> str:
    rows = [
        "| call | files to read | files executed | the API process runs, each file where it first runs | "
        "the worker runs for it |",
        "|---|---|---|---|---|",
    ]
    for what, followed in measured.items():
        executed = len(followed.api) + len(followed.worker)
        rows.append(
            f"| {what} | {len(followed.files)} | {executed} | {_files(followed.api)} | {_files(followed.worker)} |"
        )
    return "\n".join(rows)


def counts(measured: dict[str, Followed]) -> str:
    return "\n".join(
        f"{len(f.files):3} files to read, {len(f.api) + len(f.worker)} executed ({len(f.api)} in the API, "
        f"{len(f.worker)} in the worker): {what}"
        for what, f in measured.items()
    )


async def _measured(directory: Path) -> dict[str, Followed]:
    """What the test's fixtures give it, for the command line: the dev server and the sandbox."""
    from bench.ports import free_port

    smtp_port = free_port()
    async with dev_server() as env, sandbox_server(directory, smtp_port=smtp_port) as sandbox_url:
        db_url = f"sqlite+aiosqlite:///{directory / 'data' / 'lineup.db'}"
        return await measure(directory / "data", db_url, env, sandbox_url, smtp_port)


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory() as directory:
        (Path(directory) / "data").mkdir()
        shutil.copyfile(sqlite_template(Path(directory)), Path(directory) / "data" / "lineup.db")  # migrated, seeded
        measured = asyncio.run(_measured(Path(directory)))
    print(counts(measured))
    body = table(measured)
    if "--check" in argv and SECTION.stale(body):
        print("docs/architecture.md's files to follow are out of date (run `make generate`)", file=sys.stderr)
        return 1
    if "--write" in argv:
        SECTION.write(body)
    elif "--check" not in argv:
        print(body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
