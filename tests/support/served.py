"""A Stack's API on a real socket, for clients that are not in this process (the TypeScript client under Node) or
whose connections a test cuts: uvicorn serves the stack's app, whose lifespan the stack already runs."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import uvicorn

from tests.support.temporal import serving


@asynccontextmanager
async def served(app: Any) -> AsyncIterator[str]:
    """Yields the base URL (`http://127.0.0.1:<port>`) the app answers on until the block ends."""
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))  # bound here and handed to uvicorn: no other process can take it meanwhile
    config = uvicorn.Config(app, lifespan="off", log_level="warning", timeout_graceful_shutdown=1)
    try:
        async with serving(config, [listener]):
            yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        listener.close()
