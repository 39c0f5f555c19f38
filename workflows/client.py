"""Connecting to Temporal, for the API, the worker and the CLI alike."""

from __future__ import annotations

import asyncio
import logging

from temporalio.client import Client

from models.settings import Settings

log = logging.getLogger("lineup.temporal")


async def connect(settings: Settings) -> Client:
    return await Client.connect(settings.temporal_address, namespace=settings.temporal_namespace)


async def connect_until_up(settings: Settings) -> Client:
    """Retries with backoff: under `make run` the API and worker may start before Temporal answers."""
    delay = 0.2
    while True:
        try:
            return await connect(settings)
        except Exception as exc:  # noqa: BLE001 — any failure means "not yet"; readyz reports it meanwhile
            log.warning("temporal not reachable yet", extra={"fields": {"error": str(exc)}})
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)
