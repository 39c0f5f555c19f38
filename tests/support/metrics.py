"""Reading metrics in tests: a worker's endpoint (LINEUP_WORKER_METRICS_PORT), the API's /metrics, one sample."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families


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


async def scrape_api(client: Any) -> str:
    """The API's /metrics through its in-process client (no token set)."""
    response = await client.http.get("/metrics")
    assert response.status_code == 200, response.text
    text: str = response.text
    return text


def value(text: str, name: str, **labels: str) -> float:
    """The sample `name` with exactly `labels`; 0 when the series does not exist yet."""
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and sample.labels == labels:
                return float(sample.value)
    return 0.0


def moved(before: str, after: str, name: str, **labels: str) -> float:
    return value(after, name, **labels) - value(before, name, **labels)
