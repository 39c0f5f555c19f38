"""Node in tests: the tools the TypeScript client's tests need, and a command run with the event loop free."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

NODE_SECONDS = 300  # the whole `node --test` run; it takes well under a minute


def tool(name: str) -> str:
    found = shutil.which(name)
    assert found, f"{name} is needed for the TypeScript client's tests (Node 18+ and npm)"
    return found


async def run(*command: str, cwd: Path, env: dict[str, str] | None = None) -> str:
    """`command`'s output; fails the test with it when the command fails. The event loop serves Lineup meanwhile."""
    process = await asyncio.create_subprocess_exec(
        *command, cwd=cwd, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
    )
    try:
        output, _ = await asyncio.wait_for(process.communicate(), NODE_SECONDS)
    except TimeoutError:
        process.kill()
        raise
    text = output.decode(errors="replace")
    assert process.returncode == 0, text
    return text
