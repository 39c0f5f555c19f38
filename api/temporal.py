"""The API's one Temporal client: connected in the background so the API starts before Temporal does."""

from __future__ import annotations

import asyncio
import contextlib

from temporalio.client import Client

from api.errors import upstream_down
from models.settings import Settings
from workflows.client import connect_until_up


class TemporalConnection:
    def __init__(self, settings: Settings, client: Client | None = None) -> None:
        self._settings = settings
        self.client = client
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self.client is None:
            self._task = asyncio.create_task(self._connect())

    async def _connect(self) -> None:
        self.client = await connect_until_up(self._settings)

    def require(self) -> Client:
        """The client, or the upstream-down envelope while Temporal is not reachable."""
        if self.client is None:
            raise upstream_down("The workflow engine")
        return self.client

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
