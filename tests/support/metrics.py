"""Reading a worker's metrics endpoint (LINEUP_WORKER_METRICS_PORT) in tests."""

from __future__ import annotations

import asyncio

import httpx


async def scrape(port: int) -> str:
    async with httpx.AsyncClient() as http:
        for _ in range(100):  # the endpoint is up once the runtime is, which serve() does first
            try:
                response = await http.get(f"http://127.0.0.1:{port}/metrics")
                text: str = response.raise_for_status().text
                return text
            except httpx.TransportError:
                await asyncio.sleep(0.1)
    raise AssertionError(f"nothing serves metrics on port {port}")
