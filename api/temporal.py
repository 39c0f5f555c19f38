"""The API's one Temporal client: connected in the background so the API starts before Temporal does."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from temporalio.client import Client

from models.settings import Settings

log = logging.getLogger("lineup.temporal")


class TemporalConnection:
    def __init__(self, settings: Settings, client: Client | None = None) -> None:
        self._settings = settings
        self.client = client
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self.client is None:
            self._task = asyncio.create_task(self._connect_until_up())

    async def _connect_until_up(self) -> None:
        delay = 0.2
        while self.client is None:
            try:
                self.client = await Client.connect(
                    self._settings.temporal_address, namespace=self._settings.temporal_namespace
                )
                log.info("connected to temporal", extra={"fields": {"address": self._settings.temporal_address}})
            except Exception as exc:  # noqa: BLE001 — any failure means "not yet"; readyz reports it
                log.warning("temporal not reachable yet", extra={"fields": {"error": str(exc)}})
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
